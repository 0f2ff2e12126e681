"""The chat core, pure and sans-I/O: provider codecs (request builders, response and stream
parsers, error mapping) that the browser worker and the local proxy both drive."""
