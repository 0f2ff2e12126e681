"""The `openmasq` command: redact and restore text from the shell (a thin shell over the core)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .proxy.deploy_args import add_deployment_arguments, deployment_config
from .redact import Forced, RedactOptions, Vault, VaultError, pseudonymise, restore
from .redact.kinds import LEVELS
from .redact.options import LANGS
from .redact.pseudonymise import SpanSource
from .site.commands import add_site_commands

MAX_INPUT_BYTES = 64 * 1024 * 1024


class CliError(Exception):
    """A failure reported as one line on stderr with exit status 1."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
        return result
    except CliError as error:
        print(f"openmasq: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="openmasq", description=__doc__, allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    redact = commands.add_parser("redact", allow_abbrev=False,
                                 help="pseudonymise stdin and print the text the model may see")
    redact.add_argument("--mode", choices=("fake", "token"), default=None,
                        help="believable fakes (default) or [PERSON1]-style tokens; pinned in the vault")
    redact.add_argument("--level", choices=LEVELS, default="renforce", help="protection level (default renforce)")
    redact.add_argument("--lang", choices=LANGS, default="auto", help="language of the text (default auto)")
    redact.add_argument("--force", action="append", default=[], metavar="VALUE", help="always mask this value")
    redact.add_argument("--keep", action="append", default=[], metavar="VALUE", help="never mask this value")
    redact.add_argument("--vault", type=Path, metavar="FILE",
                        help="load and save the conversation's vault (successive calls form one conversation)")
    redact.add_argument("--json", action="store_true", help="print {text, vault, spans} as JSON")
    _model_arguments(redact)
    redact.set_defaults(run=_run_redact)

    rest = commands.add_parser("restore", help="restore real values in stdin using a vault")
    rest.add_argument("--vault", type=Path, metavar="FILE", required=True, help="the conversation's vault")
    rest.set_defaults(run=_run_restore)

    proxy = commands.add_parser(
        "proxy", allow_abbrev=False, help="run the local redacting proxy (OpenAI- and Anthropic-compatible)",
        description="Serve /v1/chat/completions, /v1/messages and /v1/models on localhost: every text a client "
                    "sends is redacted before it reaches UPSTREAM, and the answers are restored. One vault per "
                    "X-OpenMasq-Session header (evicted after 1 h idle), otherwise one per request.")
    proxy.add_argument("--upstream", required=True, metavar="URL",
                       help="the provider's base URL as an SDK takes it (https://api.openai.com/v1, "
                            "http://127.0.0.1:11434/v1, ...) or a preset: ollama, lmstudio, llamacpp, vllm, "
                            "openai, anthropic, openrouter, mistral, groq")
    proxy.add_argument("--port", type=int, default=8787, help="port to listen on (default 8787)")
    proxy.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    proxy.add_argument("--level", choices=LEVELS, default="renforce", help="protection level (default renforce)")
    proxy.add_argument("--mode", choices=("fake", "token"), default="fake",
                       help="believable fakes (default) or [PERSON1]-style tokens")
    proxy.add_argument("--detect-workers", type=_non_negative, default=None, metavar="N",
                       help="helper processes detecting names beside each request, on spare cores (default: one "
                            "per core beyond the first, at most 2; 0: none)")
    proxy.add_argument("--allow-media", action="store_true",
                       help="forward images, audio and remote image or document URLs as they come (the proxy cannot "
                            "read them, so it cannot vouch for what they show or name); without it such a request is "
                            "refused with 415. Inlined PDFs and text files are read and redacted either way")
    _model_arguments(proxy)
    add_deployment_arguments(proxy)
    proxy.set_defaults(run=_run_proxy)

    embed = commands.add_parser(
        "embed", help="print one normalised e5 embedding (a JSON array) per line of stdin",
        description="Embed each line of stdin with multilingual-e5-small (the model `python models/build.py e5` "
                    "writes) and print its normalised 384-d vector as one JSON array per line.")
    embed.add_argument("--query", action="store_true", help="embed as search queries (default: as passages)")
    embed.add_argument("--model", type=Path, metavar="DIR", default=None,
                       help="the converted model folder (default $OPENMASQ_CACHE/models/e5)")
    embed.set_defaults(run=_run_embed)

    add_site_commands(commands, CliError)  # build, serve: the PWA (openmasq.site)
    return parser


def _model_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--rules-only", action="store_true",
                         help="run without the on-device NER model (rules and word lists only: about twice as many "
                              "persons leak); without it, a missing model is an error")
    command.add_argument("--ner-model", type=Path, default=None, metavar="DIR",
                         help="NER model folder (default $OPENMASQ_NER_MODEL, else the repo's models/ner)")


def _load_model(args: argparse.Namespace) -> tuple[SpanSource | None, str]:
    """The NER model's span source and its name for the logs, or (None, "rules only") with --rules-only.
    A model that is missing or cannot load is an error that says what to do: nothing runs on the rules alone
    unless asked."""
    if args.rules_only:
        return None, "rules only"
    hint = "pass --rules-only to run on the rules alone"
    try:
        from .ner.runtime import ModelLoadError, Tagger, default_model_dir, ner_spans
    except ImportError as error:
        raise CliError(f"the NER model needs the models extra (pip install 'openmasq[models]': {error.name} is "
                       f"missing); {hint}") from None
    where = args.ner_model or default_model_dir()
    try:
        tagger = Tagger(where)
    except (FileNotFoundError, ModelLoadError) as error:
        raise CliError(f"{error}; {hint}") from None
    lang = getattr(args, "lang", "auto")
    return (lambda text: ner_spans(text, tagger, lang)), f"model in {where}"


def _non_negative(value: str) -> int:
    number = int(value) if value.isdigit() else -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more (got {value!r})")
    return number


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise CliError(f"input is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"input is not valid UTF-8 (byte {error.start})") from None


def _load_vault(path: Path | None, *, must_exist: bool) -> Vault | None:
    if path is None or not path.exists():
        if must_exist:
            raise CliError(f"vault file {path} does not exist")
        return None
    try:
        return Vault.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, VaultError) as error:
        raise CliError(f"cannot read vault {path}: {error}") from None


def _save_vault(path: Path, vault: Vault) -> None:
    """Atomically, with owner-only permissions: the vault holds every real value."""
    directory = path.resolve().parent
    fd, tmp = tempfile.mkstemp(prefix=".vault-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(vault.to_json(), handle, ensure_ascii=False)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise CliError(f"cannot write vault {path}: {error}") from None


def _run_redact(args: argparse.Namespace) -> int:
    text = _read_stdin()
    loaded = _load_vault(args.vault, must_exist=False)
    vault = loaded if loaded is not None else Vault.new(mode=args.mode)
    if args.mode and vault.mode and args.mode != vault.mode:
        print(f"openmasq: this conversation is pinned to {vault.mode} mode", file=sys.stderr)
    options = RedactOptions(
        level=args.level, mode=args.mode or vault.mode or "fake", lang=args.lang,
        keep=tuple(args.keep), force=tuple(Forced(v) for v in args.force),
    )
    model, _ = _load_model(args)
    try:
        result = pseudonymise(text, vault, options, model=model)
    except Exception as error:  # fail closed: print nothing of the text
        raise CliError(f"redaction failed, nothing printed: {error}") from None
    if args.vault is not None:
        _save_vault(args.vault, result.vault)
    if args.json:
        doc: dict[str, Any] = {
            "text": result.text,
            "vault": dict(result.vault.entries),
            "spans": [rep.to_json() for rep in result.replacements],
        }
        _emit(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        _emit(result.text)
    return 0


def _run_restore(args: argparse.Namespace) -> int:
    vault = _load_vault(args.vault, must_exist=True)
    assert vault is not None
    _emit(restore(_read_stdin(), vault))
    return 0


def _run_proxy(args: argparse.Namespace) -> int:
    try:
        from .proxy.app import ProxyConfig, resolve_upstream, serve
    except ImportError as error:
        raise CliError(f"the proxy needs its extra: pip install 'openmasq[proxy]' ({error.name} is missing)") from None
    try:
        resolve_upstream(args.upstream)
    except ValueError as error:
        raise CliError(str(error)) from None
    try:
        deployment = deployment_config(args)
    except (ValueError, OSError) as error:
        raise CliError(str(error)) from None
    model, model_name = _load_model(args)
    config = ProxyConfig(args.upstream, RedactOptions(level=args.level, mode=args.mode),
                         detect_workers=args.detect_workers, model=model, model_name=model_name,
                         allow_media=args.allow_media, **deployment)
    serve(config, host=args.host, port=args.port, workers=args.workers)
    return 0


EMBED_BATCH = 16


def _run_embed(args: argparse.Namespace) -> int:
    try:
        from .embed import Embedder, Kind, ModelNotBuilt
    except ImportError as error:
        raise CliError(f"embeddings need the extra: pip install 'openmasq[models]' ({error.name} is missing)") from None
    try:
        embedder = Embedder(args.model)
    except ModelNotBuilt as error:
        raise CliError(str(error)) from None
    kind: Kind = "query" if args.query else "passage"
    lines = _stdin_lines()
    for start in range(0, len(lines), EMBED_BATCH):  # stream: each batch is printed as soon as it is done
        vectors = embedder.embed(lines[start : start + EMBED_BATCH], kind)
        _emit("".join(json.dumps(vector) + "\n" for vector in vectors))
    return 0


def _stdin_lines() -> list[str]:
    """One text per line: only \\n (and a \\r before it) separates texts, unlike str.splitlines()."""
    lines = _read_stdin().split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _emit(text: str) -> None:
    """UTF-8 whatever the locale says: the output is fed to other programs."""
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
