"""The local redacting proxy: point any OpenAI- or Anthropic-compatible client at it and the
upstream model only ever sees fakes (CPython only: needs the `proxy` extra)."""
