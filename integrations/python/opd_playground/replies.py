"""Checks of `npm run serve`'s replies, read as untrusted input (stdlib only; docs/scale-out.md).

A reply whose fields the clients read must be a JSON object holding each of them (its own keys) with a value of the
type the server's routes answer (cli/serve/env-routes.ts); otherwise `ServerReplyError` names the route, the field,
what it takes, what came and the reply itself, instead of a bare KeyError or TypeError inside a trainer.
"""

import json
import math


class ServerReplyError(RuntimeError):
    """A reply the client cannot read: `route` ("POST /reset"), `field` ("info.won"; None when the whole reply is at
    fault: not JSON, not an object) and `reply` (the value, or the text when it is not JSON)."""

    def __init__(self, message, route, field, reply):
        super().__init__(message)
        self.route, self.field, self.reply = route, field, reply


REPLY_FIX = (
    "point base_url at the OPD Playground's `npm run serve` (GET /version answers \"server\": \"opd-playground\"), "
    "of the same checkout as this client"
)

SHOWN_CHARS = 300


def shown(value, raw=False):
    """`value` for a message: its JSON (with `raw`, a text as it is), cut to SHOWN_CHARS characters."""
    text = value if raw else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


KINDS = {
    "a string": lambda v: isinstance(v, str),
    "an int >= 0": _is_int,
    "a number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "a bool": lambda v: isinstance(v, bool),
    "a list of strings": lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
}

# What the clients read of each route's reply (cli/serve/env-routes.ts): (field, kind) pairs; a field ending in "?"
# may be left out; a kind that is itself such a tuple is an object holding those fields.
CREATE = (("id", "an int >= 0"), ("env?", "a string"), ("preset?", "a string"))
RESET = (
    ("id", "an int >= 0"),
    ("task", "a string"),
    ("task_type", "a string"),
    ("observation", "a string"),
    ("admissible_actions", "a list of strings"),
    ("max_steps", "an int >= 0"),
)
STEP = (
    ("observation", "a string"),
    ("reward", "a number"),
    ("done", "a bool"),
    ("info", (("won", "a bool"), ("steps", "an int >= 0"), ("admissible_actions", "a list of strings"))),
)


def check_reply(reply, route, base_url, fields, prefix="", whole=None):
    """Return `reply` (a parsed JSON value from `base_url`'s `route`, e.g. "POST /reset") once it is an object that
    holds each of `fields` ((name, kind) pairs: kind a key of KINDS, or such pairs for a nested object; a name ending
    in "?" may be absent) with a value of that kind; for a nested object, `prefix` names its fields ("info.") and
    `whole` is the reply it is in (shown in messages).

    Raises ServerReplyError naming the route, the URL, the field (with its keys when it is missing, or what it takes
    and what came), the reply (cut to SHOWN_CHARS characters) and the fix (REPLY_FIX)."""
    where, whole = f"{route}: the reply of {base_url}", reply if whole is None else whole
    if not isinstance(reply, dict):
        what = f"field '{prefix[:-1]}'" if prefix else "the reply"
        raise ServerReplyError(
            f"{where}: {what} must be a JSON object, got {type(reply).__name__} {shown(reply)}; {REPLY_FIX}",
            route, prefix[:-1] or None, whole)
    for name, kind in fields:
        field, optional = name.rstrip("?"), name.endswith("?")
        if field not in reply:
            if optional:
                continue
            raise ServerReplyError(
                f"{where} has no field '{prefix}{field}' (its keys: {list(reply)}); the reply: {shown(whole)}; "
                f"{REPLY_FIX}", route, prefix + field, whole)
        value = reply[field]
        if isinstance(kind, tuple):
            check_reply(value, route, base_url, kind, f"{prefix}{field}.", whole)
        elif not KINDS[kind](value):
            raise ServerReplyError(
                f"{where}: field '{prefix}{field}' must be {kind}, got {shown(value)}; the reply: {shown(whole)}; "
                f"{REPLY_FIX}", route, prefix + field, whole)
    return reply
