"""A small JSON client for `npm run serve` (stdlib only: http.client, json).

One persistent HTTP/1.1 connection per thread; a connection the server closed while idle is reopened once. A refusal
(status >= 400) raises `ServerError` with the server's message, which names the field and the fix; a server that
cannot be reached (nothing listening, an unknown host, a connection closed again without an answer) raises
`ServerUnreachable` naming the URL and how to start it; a reply that is not JSON, or lacks a field the caller reads
(`expect`), raises `ServerReplyError` (replies.py) naming the route, the field and the reply.
"""

import http.client
import json
import re
import threading
import urllib.parse

from .replies import REPLY_FIX, ServerReplyError, check_reply, shown


class ServerError(RuntimeError):
    """A refusal of the server: `status` (HTTP) and `message` (the server's `error`)."""

    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class ServerUnreachable(ConnectionError):
    """No server answers at `base_url` (`port` its port, named in the fix): `reason` is the system's (e.g.
    "Connection refused"), or says that the connection closed twice without an answer."""

    def __init__(self, base_url, port, reason):
        super().__init__(
            f"cannot reach the OPD Playground server at {base_url} ({reason}): start it in the playground's folder "
            f"with `npm run serve -- --port {port}` (add `--host 0.0.0.0` when the trainer runs on another machine), "
            "or point base_url (OPD_SERVE_URL) at the server that runs"
        )
        self.base_url, self.reason = base_url, reason


class ServerTimeout(TimeoutError):
    """The server at `base_url` accepted `route` but sent no answer within `timeout` seconds (a TimeoutError, so
    code that catches that still does): the message names the route, the URL, the timeout and the fix."""

    def __init__(self, route, base_url, timeout):
        super().__init__(
            f"{route}: no answer from the OPD Playground server at {base_url} within {timeout:g} s (the client's "
            "timeout): a server busy with many environments may need longer; make the client with a larger one, "
            "e.g. Client(base_url, timeout=300), and check that the server is not stopped (Ctrl-Z) or overloaded"
        )
        self.route, self.base_url, self.timeout = route, base_url, timeout


ROW_HOLDS = (
    "a row must hold the task's `index` (an int >= 0) and may hold `split`, `env` and `preset`, as the "
    "`env_kwargs` that `npm run export-tasks` writes: {'env': …, 'preset': …, 'split': 'train', 'index': 7}"
)


def row_index(row, where):
    """The task index of an env_kwargs `row` (a dict), for messages `where` (e.g. "reset: env_kwargs row 3").

    Raises ValueError naming `index`, the row's keys and what a row must hold (ROW_HOLDS) when the row is not a
    mapping, has no `index`, or its index is not an int >= 0."""
    if not hasattr(row, "keys"):
        raise ValueError(f"{where} is {type(row).__name__} {row!r}, not a dict; {ROW_HOLDS}")
    if "index" not in row:
        raise ValueError(f"{where} has no field 'index' (its keys: {list(row.keys())}); {ROW_HOLDS}")
    value = row["index"]
    # ASCII digits only: str.isdigit() also takes '²' or '٣', which int() refuses or reads as another number
    if isinstance(value, bool) or not re.fullmatch(r"[0-9]+", str(value)):
        raise ValueError(f"{where}: field 'index' must be an int >= 0, got {value!r}; {ROW_HOLDS}")
    return int(value)


def check_row_env(row, where, env, preset):
    """Check that an env_kwargs `row` (a dict) addresses a task of the environments' own `env` and `preset`.

    A row's `env` or `preset` (as `npm run export-tasks` writes them) that differs from the environments' raises
    ValueError naming `where` (e.g. "reset: env_kwargs row 3"), the field, both values and the two fixes: make the
    environments with the row's env / preset, or export the tasks of the environments'. A field the row leaves out,
    or an `env` / `preset` of None (not known), is not checked. A row's `split` is never a mismatch: it is part of the
    task's address, sent to `/reset` as it is."""
    for field, own in (("env", env), ("preset", preset)):
        if own is None or field not in row or row[field] == own:
            continue
        made = f"{env}/{preset}" if env is not None and preset is not None else f"{field} {own!r}"
        export = f"--env {env} --preset {preset}" if env is not None and preset is not None else f"--{field} {own}"
        raise ValueError(
            f"{where}: field {field!r} is {row[field]!r}, but these environments are {made} ({field} {own!r}); "
            f"make the environments with {field}={row[field]!r}, or export the tasks of {field} {own!r} "
            f"(npm run export-tasks -- {export})"
        )


class Client:
    """JSON requests to a server at `base_url` (e.g. "http://127.0.0.1:8700"); `timeout` in seconds."""

    def __init__(self, base_url, timeout=60.0):
        url = urllib.parse.urlsplit(base_url)
        if url.scheme != "http" or not url.hostname:
            raise ValueError(f"base_url must be http://host:port, got {base_url!r}")
        self.base_url, self.host, self.port, self.timeout = base_url, url.hostname, url.port or 80, timeout
        self._local = threading.local()

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(self, method, path, body=None, expect=None):
        """Send one request (`body`: a JSON value, or None for none); return the reply's JSON value, checked against
        `expect` when given ((field, kind) pairs, replies.check_reply; e.g. replies.RESET).

        Raises ServerError on a refusal (status >= 400: the server's `error`, else the reply's text);
        ServerUnreachable when nothing answers at the URL (the connection refused, the host unknown, a connection
        closed twice without an answer); ServerTimeout when it accepted the request but sent no answer within
        `timeout` seconds; ServerReplyError when a reply of status < 400 is not JSON or misses
        `expect`."""
        route = f"{method} {path.split('?')[0]}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json"} if data is not None else {}
        for attempt in (0, 1):
            conn = self._connection()
            try:
                if conn.sock is None:
                    conn.connect()
            except OSError as e:  # refused, unknown host, no route to it, no answer to the connect in `timeout` s
                self._drop()
                raise ServerUnreachable(self.base_url, self.port, getattr(e, "strerror", None) or e) from e
            try:
                conn.request(method, path, body=data, headers=headers)
                reply = conn.getresponse()
                raw = reply.read()
                break
            except TimeoutError as e:  # socket.timeout: connected, but no reply within `timeout` s
                self._drop()  # the reply may still come on this connection: never read it as another's
                raise ServerTimeout(route, self.base_url, self.timeout) from e
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                self._drop()  # the server closed an idle connection: open a new one once
                if attempt:
                    why = f"the connection closed twice without an answer to {route}: {e}"
                    raise ServerUnreachable(self.base_url, self.port, why) from e
        try:
            value = json.loads(raw) if raw else None
        except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
            text = raw.decode("utf-8", "replace")
            if reply.status >= 400:
                raise ServerError(reply.status, text) from None
            raise ServerReplyError(
                f"{route}: the reply of {self.base_url} (HTTP {reply.status}) is not JSON ({e}): "
                f"{shown(text, raw=True)}; {REPLY_FIX}", route, None, text) from None
        if reply.status >= 400:
            error = value.get("error") if isinstance(value, dict) else None
            raise ServerError(reply.status, error if error is not None else raw.decode("utf-8", "replace"))
        return value if expect is None else check_reply(value, route, self.base_url, expect)

    def post(self, path, body, expect=None):
        """POST `body` as JSON to `path`; the reply checked against `expect` (see `request`, which lists the errors)."""
        return self.request("POST", path, body, expect)

    def get(self, path, expect=None, **query):
        """GET `path` with `query` parameters; the reply checked against `expect` (see `request` for the errors)."""
        return self.request("GET", path + ("?" + urllib.parse.urlencode(query) if query else ""), expect=expect)

    def close(self):
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _drop(self):
        """Close this thread's connection after a failure: the next request opens a new one."""
        self.close()
