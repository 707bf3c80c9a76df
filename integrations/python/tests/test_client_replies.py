"""The Python clients against replies `npm run serve` never sends (stdlib unittest; run from the repository root:
`python3 -m unittest discover -s integrations/python/tests`).

A stand-in server (http.server on a free port) answers each route with a reply set by the test: a `/reset` reply
without `task`, fields of another type, a reply that is not JSON or not an object, a `/create` reply without `id`
in the middle of the constructor (the envs made are closed), a server that closes every connection unanswered, and
one that takes longer to answer than the client's timeout.
The clients must raise an error naming the route, the field, the reply and the fix, never a bare KeyError.
"""

import json
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "integrations" / "python"))

from opd_playground import (  # noqa: E402
    Client,
    PlaygroundEnvs,
    ServerError,
    ServerReplyError,
    ServerTimeout,
    ServerUnreachable,
    make_environment_factory,
)

HANG_UP = object()  # a reply that closes the connection without an answer


class StandIn(BaseHTTPRequestHandler):
    """Answers `server.replies[path]` (a JSON value, a (status, text) pair, a function of the body, or HANG_UP) and
    logs (method, path, body) in `server.log`."""

    protocol_version = "HTTP/1.1"

    def _answer(self, body):
        self.server.log.append((self.command, self.path.split("?")[0], body))
        reply = self.server.replies[self.path.split("?")[0]]
        reply = reply(body) if callable(reply) else reply
        if reply is HANG_UP:
            self.close_connection = True
            return
        status, text = reply if isinstance(reply, tuple) else (200, json.dumps(reply))
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # a client that gave up waiting (the timeout test)
            self.close_connection = True

    def do_POST(self):  # noqa: N802 - http.server's name
        length = int(self.headers.get("content-length", 0))
        self._answer(json.loads(self.rfile.read(length)))

    def do_GET(self):  # noqa: N802 - http.server's name
        self._answer(None)

    def log_message(self, *args):
        pass


def created(limit=None):
    """A `/create` reply: ids 0, 1, … as the server gives them; from the `limit`-th on, a reply without `id`."""
    count = [0]

    def reply(body):
        count[0] += 1
        if limit is not None and count[0] > limit:
            return {"env": "household", "preset": "easy"}
        return {"id": count[0] - 1, "env": "household", "preset": "easy"}

    return reply


RESET = {"id": 0, "task": "put a mug in the desk.", "task_type": "pick", "observation": "You are in a room.",
         "admissible_actions": ["look", "go to desk 1"], "available_actions": ["look", "go to desk 1"], "max_steps": 10}
STEP = {"observation": "Nothing happens.", "reward": 0, "done": False,
        "info": {"won": False, "is_action_valid": True, "admissible_actions": ["look"], "steps": 1}}
FIX = ("point base_url at the OPD Playground's `npm run serve` (GET /version answers \"server\": \"opd-playground\"), "
       "of the same checkout as this client")


class ClientRepliesTest(unittest.TestCase):
    def setUp(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        self.server.replies = {"/create": created(), "/reset": RESET, "/step": STEP, "/close": {"closed": True}}
        self.server.log = []
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def without(self, reply, field):
        return {k: v for k, v in reply.items() if k != field}

    def test_a_reset_reply_without_a_field_names_it_and_the_reply(self):
        self.server.replies["/reset"] = self.without(RESET, "task")
        want = (
            f"POST /reset: the reply of {self.base} has no field 'task' (its keys: ['id', 'task_type', "
            "'observation', 'admissible_actions', 'available_actions', 'max_steps']); the reply: "
            f"{json.dumps(self.server.replies['/reset'])}; {FIX}"
        )
        envs = PlaygroundEnvs(self.base, env_num=2)
        with self.assertRaises(ServerReplyError) as e:
            envs.reset([{"index": 3}, {"index": 4}])
        self.assertEqual(str(e.exception), want)
        self.assertEqual((e.exception.route, e.exception.field), ("POST /reset", "task"))
        envs.close()
        rollout = make_environment_factory(self.base)()
        with self.assertRaises(ServerReplyError) as e:
            rollout.reset(env_kwargs={"index": 3})
        self.assertEqual(str(e.exception), want)
        rollout._close()

    def test_fields_of_another_type_and_replies_not_objects_are_named(self):
        envs = PlaygroundEnvs(self.base, env_num=1)
        cases = [
            ("/reset", {**RESET, "max_steps": "10"}, "POST /reset",
             "field 'max_steps' must be an int >= 0, got \"10\""),
            ("/reset", {**RESET, "admissible_actions": "look"}, "POST /reset",
             "field 'admissible_actions' must be a list of strings, got \"look\""),
            ("/step", {**STEP, "done": "false"}, "POST /step", "field 'done' must be a bool, got \"false\""),
            ("/step", {**STEP, "info": {**STEP["info"], "won": 1}}, "POST /step",
             "field 'info.won' must be a bool, got 1"),
        ]
        for path, reply, route, what in cases:
            with self.subTest(what=what):
                self.server.replies[path] = reply
                with self.assertRaises(ServerReplyError) as e:
                    envs.reset([{"index": 3}]) if path == "/reset" else envs.step(["look"])
                self.assertEqual(str(e.exception),
                                 f"{route}: the reply of {self.base}: {what}; the reply: {json.dumps(reply)}; {FIX}")
                self.server.replies[path] = RESET if path == "/reset" else STEP
        self.server.replies["/step"] = self.without(STEP, "info")
        with self.assertRaises(ServerReplyError) as e:
            envs.step(["look"])
        self.assertEqual(str(e.exception).split("; the reply:")[0],
                         f"POST /step: the reply of {self.base} has no field 'info' (its keys: ['observation', "
                         "'reward', 'done'])")
        self.server.replies["/step"] = {**STEP, "info": ["won"]}
        with self.assertRaises(ServerReplyError) as e:
            envs.step(["look"])
        self.assertEqual(str(e.exception),
                         f"POST /step: the reply of {self.base}: field 'info' must be a JSON object, got list "
                         f"[\"won\"]; {FIX}")
        self.server.replies["/reset"] = [RESET]
        with self.assertRaises(ServerReplyError) as e:
            envs.reset([{"index": 3}])
        self.assertEqual(str(e.exception).split(", got")[0],
                         f"POST /reset: the reply of {self.base}: the reply must be a JSON object")
        self.server.replies["/reset"] = (200, "<html>a proxy's page</html>")
        with self.assertRaises(ServerReplyError) as e:
            envs.reset([{"index": 3}])
        self.assertEqual(str(e.exception),
                         f"POST /reset: the reply of {self.base} (HTTP 200) is not JSON (Expecting value: line 1 "
                         f"column 1 (char 0)): <html>a proxy's page</html>; {FIX}")
        self.server.replies["/reset"] = (502, "<html>Bad Gateway</html>")  # a refusal that is not JSON: its text
        with self.assertRaises(ServerError) as e:
            envs.reset([{"index": 3}])
        self.assertEqual((e.exception.status, e.exception.message), (502, "<html>Bad Gateway</html>"))
        envs.close()

    def test_a_create_reply_without_id_midway_closes_the_envs_made(self):
        self.server.replies["/create"] = created(limit=2)
        with self.assertRaises(ServerReplyError) as e:
            PlaygroundEnvs(self.base, env_num=2, group_n=2)
        self.assertEqual(str(e.exception),
                         f"POST /create: the reply of {self.base} has no field 'id' (its keys: ['env', 'preset']); "
                         f"the reply: {{\"env\": \"household\", \"preset\": \"easy\"}}; {FIX}")
        self.assertEqual([(m, p, b) for m, p, b in self.server.log if p == "/close"],
                         [("POST", "/close", {"env_idx": 0}), ("POST", "/close", {"env_idx": 1})])

    def test_a_server_that_hangs_up_names_the_url_and_the_fix(self):
        self.server.replies["/create"] = HANG_UP
        with self.assertRaises(ServerUnreachable) as e:
            PlaygroundEnvs(self.base, env_num=1)
        port = self.server.server_address[1]
        self.assertEqual(
            str(e.exception),
            f"cannot reach the OPD Playground server at {self.base} (the connection closed twice without an answer "
            "to POST /create: Remote end closed connection without response): start it in the playground's folder "
            f"with `npm run serve -- --port {port}` (add `--host 0.0.0.0` when the trainer runs on another machine), "
            "or point base_url (OPD_SERVE_URL) at the server that runs",
        )
        self.assertEqual([p for _, p, _ in self.server.log], ["/create", "/create"])

    def test_a_server_slower_than_the_timeout_names_the_route_the_timeout_and_the_fix(self):
        def slow(body):
            time.sleep(1.0)
            return RESET

        self.server.replies["/reset"] = slow
        client = Client(self.base, timeout=0.25)
        with self.assertRaises(ServerTimeout) as e:
            client.request("POST", "/reset", {"env_idx": 0, "index": 3})
        self.assertIsInstance(e.exception, TimeoutError)
        self.assertEqual(
            str(e.exception),
            f"POST /reset: no answer from the OPD Playground server at {self.base} within 0.25 s (the client's "
            "timeout): a server busy with many environments may need longer; make the client with a larger one, "
            "e.g. Client(base_url, timeout=300), and check that the server is not stopped (Ctrl-Z) or overloaded",
        )
        self.server.replies["/reset"] = RESET  # the next request opens a new connection and gets its own reply
        self.assertEqual(client.request("POST", "/reset", {"env_idx": 0, "index": 4})["task"], RESET["task"])
        client.close()


if __name__ == "__main__":
    unittest.main()
