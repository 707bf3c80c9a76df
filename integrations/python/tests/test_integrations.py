"""The Python clients against a real `npm run serve` (stdlib unittest; run from the repository root:
`python3 -m unittest discover -s integrations/python/tests`).

Starts the server (`--expert`, a free port), exports each registered env's test-seen tasks with `npm run
export-tasks`, and drives 16 tasks x 8 environments per env to the end with the expert's actions through the
verl-agent-shaped manager and the TRL-shaped environment class: every episode must succeed with reward 1. Then the
client's errors: a row without `index` (or a bad one), a row of another env or preset (refused before any env is
reset; TRL's class makes an env of the row's preset), a `/create` that fails midway (a second server with `--max-envs 4`), and a
port with nothing listening.
"""

import inspect
import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "integrations" / "python"))

from opd_playground import (  # noqa: E402
    Client,
    PlaygroundEnvironmentManager,
    PlaygroundEnvs,
    ServerError,
    ServerUnreachable,
    make_environment_factory,
    playground_projection,
    reward_func,
)

TSX = str(ROOT / "node_modules" / ".bin" / "tsx")
TASKS, GROUP = 16, 8
SERVER = {}


def start_server(*flags):
    """`npm run serve -- --port 0 FLAGS` in the background: (process, base URL)."""
    proc = subprocess.Popen([TSX, "cli/serve.ts", "--port", "0", *flags], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("serving on http://"):
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, line.split()[2]


def stop_server(proc):
    proc.terminate()
    proc.wait(timeout=30)
    proc.stdout.close()


def setUpModule():
    SERVER["proc"], SERVER["base"] = start_server("--expert")
    SERVER["client"] = Client(SERVER["base"])
    SERVER["envs"] = [e["name"] for e in SERVER["client"].get("/version")["envs"]]
    SERVER["tmp"] = tempfile.TemporaryDirectory()


def tearDownModule():
    SERVER["client"].close()
    stop_server(SERVER["proc"])
    SERVER["tmp"].cleanup()


def exported_rows(env):
    """The first TASKS test-seen rows `npm run export-tasks` writes for `env` (its default preset)."""
    out = SERVER["tmp"].name
    cmd = [TSX, "cli/export-tasks.ts", "--out", out, "--env", env, "--train", "0", "--test", str(TASKS), "--val", "0"]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    (folder,) = [p for p in Path(out).iterdir() if p.name.startswith(env + "-")]
    with open(folder / "test-seen.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def expert(env_id):
    return SERVER["client"].get("/expert_action", env_idx=env_id)["action"]


class VerlAgentTest(unittest.TestCase):
    def test_groups_of_8_solved_by_the_expert(self):
        for env in SERVER["envs"]:
            with self.subTest(env=env):
                rows = exported_rows(env)
                # verl-agent repeats each dataset row group_n times, interleaved: a group's rows are adjacent.
                kwargs = [row["env_kwargs"] for row in rows for _ in range(GROUP)]
                envs = PlaygroundEnvs(SERVER["base"], env=env, env_num=TASKS, group_n=GROUP)
                manager = PlaygroundEnvironmentManager(envs, playground_projection, {"env": {"history_length": 2}})
                obs, infos = manager.reset(kwargs)
                self.assertEqual(len(obs["text"]), TASKS * GROUP)
                for i, info in enumerate(infos):
                    self.assertEqual(info["task"], rows[i // GROUP]["extra_info"]["task"])
                    self.assertIn("Your task is to: " + info["task"], obs["text"][i])
                    self.assertIn("Your current observation is: " + obs["anchor"][i], obs["text"][i])
                first = obs["anchor"][0]
                totals, won, done = [0.0] * len(obs["text"]), [False] * len(obs["text"]), [False] * len(obs["text"])
                for turn in range(infos[0]["max_steps"]):
                    actions = ["<think>done</think><action>look</action>" if done[i] else
                               f"<think>the expert's move</think><action>{expert(envs.ids[i])}</action>"
                               for i in range(len(done))]
                    obs, rewards, dones, infos = manager.step(actions)
                    if turn == 0:  # the history (history_length 2) holds the first observation and action
                        action = playground_projection(actions[:1])[0][0]
                        self.assertIn(f"[Observation 1: {first!r}, Action: {action!r}]", obs["text"][0])
                    for i in range(len(done)):
                        if not done[i]:
                            self.assertTrue(infos[i]["is_action_valid"])
                        totals[i] += rewards[i]
                        won[i] = won[i] or infos[i]["won"]
                        done[i] = done[i] or dones[i]
                    if all(done):
                        break
                self.assertEqual(sum(won), TASKS * GROUP)
                self.assertEqual(totals, [1.0] * (TASKS * GROUP))
                envs.close()

    def test_projection_and_refusals(self):
        actions, valids = playground_projection(["<think>a</think><action> go to desk 1 </action>", "go to desk 1"])
        self.assertEqual((actions, valids), (["go to desk 1", "go to desk 1"], [True, False]))
        with self.assertRaises(ServerError) as e:
            SERVER["client"].post("/step", {"env_idx": 10 ** 9, "action": "look"})
        self.assertEqual(e.exception.status, 404)
        self.assertIn("no env 1000000000", e.exception.message)


class TrlTest(unittest.TestCase):
    def test_128_rollouts_solved_by_the_expert(self):
        for env in SERVER["envs"]:
            with self.subTest(env=env):
                rows = exported_rows(env)
                factory = make_environment_factory(SERVER["base"], env=env)
                rollouts = [factory() for _ in range(TASKS * GROUP)]
                tools = [n for n, m in inspect.getmembers(rollouts[0], inspect.ismethod)
                         if n not in ("reset", "get_reward") and not n.startswith("_")]
                self.assertEqual(tools, ["act"])
                self.assertIn("Args:\n            action:", rollouts[0].act.__doc__)
                for k, rollout in enumerate(rollouts):
                    prompt = rollout.reset(**rows[k // GROUP])
                    self.assertTrue(prompt.startswith("Your task is to: " + rows[k // GROUP]["extra_info"]["task"]))
                while not all(r.done for r in rollouts):
                    for rollout in rollouts:
                        if not rollout.done:
                            answer = rollout.act(expert(rollout._id))
                            self.assertIn("Admissible actions: ", answer)
                self.assertEqual(reward_func(rollouts), [1.0] * (TASKS * GROUP))
                self.assertTrue(all(r.won and r.get_reward() == 1.0 for r in rollouts))
                with self.assertRaises(ValueError):
                    rollouts[0].act("look")
                for rollout in rollouts:
                    rollout._close()


ROW_HOLDS = (
    "a row must hold the task's `index` (an int >= 0) and may hold `split`, `env` and `preset`, as the "
    "`env_kwargs` that `npm run export-tasks` writes: {'env': …, 'preset': …, 'split': 'train', 'index': 7}"
)


class ClientErrorsTest(unittest.TestCase):
    def test_a_row_without_index_names_the_field(self):
        env = SERVER["envs"][0]
        envs = PlaygroundEnvs(SERVER["base"], env=env, env_num=2)
        try:
            with self.assertRaises(ValueError) as e:
                envs.reset([{"split": "train", "index": 3}, {"split": "train", "task": "x"}])
            self.assertEqual(str(e.exception),
                             f"reset: env_kwargs row 1 has no field 'index' (its keys: ['split', 'task']); {ROW_HOLDS}")
            with self.assertRaises(ValueError) as e:
                envs.reset([{"index": 3}, {"index": "three"}])
            self.assertEqual(str(e.exception),
                             f"reset: env_kwargs row 1: field 'index' must be an int >= 0, got 'three'; {ROW_HOLDS}")
            for bad in ("\u00b2", "3.0", " 3", 2.5):  # '²' passes str.isdigit() but int() refuses it
                with self.assertRaises(ValueError) as e:
                    envs.reset([{"index": 3}, {"index": bad}])
                self.assertEqual(str(e.exception),
                                 f"reset: env_kwargs row 1: field 'index' must be an int >= 0, got {bad!r}; {ROW_HOLDS}")
            with self.assertRaises(ValueError) as e:
                envs.reset([{"index": 3}, 7])
            self.assertEqual(str(e.exception), f"reset: env_kwargs row 1 is int 7, not a dict; {ROW_HOLDS}")
            self.assertEqual(len(envs.reset([{"index": 3}, {"index": 4}])[0]), 2)
        finally:
            envs.close()
        rollout = make_environment_factory(SERVER["base"], env=env)()
        with self.assertRaises(ValueError) as e:
            rollout.reset(env_kwargs={"split": "train", "index": -1})
        self.assertEqual(str(e.exception), f"reset: env_kwargs: field 'index' must be an int >= 0, got -1; {ROW_HOLDS}")
        with self.assertRaises(ValueError) as e:
            rollout.reset(env_kwargs={"index": "\u00b2"})
        self.assertEqual(str(e.exception),
                         f"reset: env_kwargs: field 'index' must be an int >= 0, got '\u00b2'; {ROW_HOLDS}")
        self.assertIsNone(rollout._id)  # refused before any request: no env was made
        rollout._close()

    def test_a_row_of_another_preset_or_env_is_refused_before_any_reset(self):
        envs = PlaygroundEnvs(SERVER["base"], "household", "easy", env_num=2, group_n=2)
        try:
            fix = "or export the tasks of preset 'easy' (npm run export-tasks -- --env household --preset easy)"
            with self.assertRaises(ValueError) as e:  # one row per group: rows 0 and 1 of the caller's 2
                envs.reset([{"env": "household", "preset": "default", "index": 3}, {"index": 3}])
            self.assertEqual(str(e.exception),
                             "reset: env_kwargs row 0: field 'preset' is 'default', but these environments are "
                             f"household/easy (preset 'easy'); make the environments with preset='default', {fix}")
            with self.assertRaises(ValueError) as e:  # the bad row last: no env was reset before the refusal
                envs.reset([{"index": 3}, {"index": 3}, {"index": 3}, {"preset": "easy-pick2", "index": 3}])
            self.assertEqual(str(e.exception),
                             "reset: env_kwargs row 3: field 'preset' is 'easy-pick2', but these environments are "
                             f"household/easy (preset 'easy'); make the environments with preset='easy-pick2', {fix}")
            with self.assertRaises(ValueError) as e:
                envs.reset([{"index": 3}, {"env": "shop", "preset": "default", "index": 3}])
            self.assertEqual(str(e.exception),
                             "reset: env_kwargs row 1: field 'env' is 'shop', but these environments are household/easy "
                             "(env 'household'); make the environments with env='shop', or export the tasks of env "
                             "'household' (npm run export-tasks -- --env household --preset easy)")
            with self.assertRaises(ServerError) as e:
                SERVER["client"].get("/observation", env_idx=envs.ids[0])
            self.assertEqual((e.exception.status, e.exception.message),
                             (409, f"GET /observation: env {envs.ids[0]} has no task yet; POST /reset it first"))
            # a row of the envs' own env and preset, and one with a split of its own: both reset
            obs, infos = envs.reset([{"env": "household", "preset": "easy", "index": 3},
                                     {"split": "test-seen", "index": 3}])
            self.assertEqual([i["max_steps"] for i in infos], [10, 10, 10, 10])
            self.assertEqual(infos[0]["task"], infos[1]["task"])
        finally:
            envs.close()
        defaults = PlaygroundEnvs(SERVER["base"], env_num=1)  # env and preset left out: the server's, as it made them
        try:
            self.assertEqual((defaults.env, defaults.preset), ("household", "easy"))
            with self.assertRaises(ValueError) as e:
                defaults.reset([{"preset": "default", "index": 3}])
            self.assertTrue(str(e.exception).startswith("reset: env_kwargs row 0: field 'preset' is 'default', but "
                                                         "these environments are household/easy (preset 'easy');"))
        finally:
            defaults.close()
        # TRL: one instance is one rollout; a row of another preset makes an env of that preset (the old one closed)
        rollout = make_environment_factory(SERVER["base"], env="household", preset="easy")()
        try:
            open_before = SERVER["client"].get("/health")["envs"]
            first = rollout.reset(env_kwargs={"env": "household", "preset": "default", "split": "train", "index": 3})
            self.assertTrue(first.endswith("at most 30 actions."))
            self.assertEqual(SERVER["client"].get("/health")["envs"], open_before + 1)
            second = rollout.reset(env_kwargs={"env": "household", "preset": "easy", "split": "train", "index": 3})
            self.assertTrue(second.endswith("at most 10 actions."))
            self.assertEqual(SERVER["client"].get("/health")["envs"], open_before + 1)
        finally:
            rollout._close()

    def test_create_failing_midway_closes_the_envs_made(self):
        proc, base = start_server("--max-envs", "4", "--idle-timeout", "0")
        client = Client(base)
        try:
            with self.assertRaises(ServerError) as e:
                PlaygroundEnvs(base, env_num=3, group_n=2, client=Client(base))
            self.assertEqual(e.exception.status, 429)
            self.assertEqual(
                e.exception.message,
                "POST /create: 4 environments are open, the most this server keeps (--max-envs 4); POST /close the "
                "ones you are done with, or start the server with a higher --max-envs",
            )
            self.assertEqual(client.get("/health")["envs"], 0)
            envs = PlaygroundEnvs(base, env_num=2, group_n=2)  # the 4 slots are free again
            self.assertEqual((len(envs.ids), client.get("/health")["envs"]), (4, 4))
            envs.close()
            self.assertEqual(client.get("/health")["envs"], 0)
        finally:
            client.close()
            stop_server(proc)

    def test_no_server_names_the_url_and_the_fix(self):
        with socket.socket() as s:  # a port that was free a moment ago: nothing listens on it
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        want = (
            f"cannot reach the OPD Playground server at {url} (Connection refused): start it in the playground's "
            f"folder with `npm run serve -- --port {port}` (add `--host 0.0.0.0` when the trainer runs on another "
            "machine), or point base_url (OPD_SERVE_URL) at the server that runs"
        )
        with self.assertRaises(ServerUnreachable) as e:
            PlaygroundEnvs(url, env_num=2)
        self.assertEqual(str(e.exception), want)
        self.assertIsInstance(e.exception, ConnectionError)
        with self.assertRaises(ServerUnreachable) as e:
            make_environment_factory(url)().reset()
        self.assertEqual(str(e.exception), want)


if __name__ == "__main__":
    unittest.main()
