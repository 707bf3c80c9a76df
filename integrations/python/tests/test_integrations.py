"""The Python clients against a real `npm run serve` (stdlib unittest; run from the repository root:
`python3 -m unittest discover -s integrations/python/tests`).

Starts the server (`--expert`, a free port), exports each registered env's test-seen tasks with `npm run
export-tasks`, and drives 16 tasks x 8 environments per env to the end with the expert's actions through the
verl-agent-shaped manager and the TRL-shaped environment class: every episode must succeed with reward 1.
"""

import inspect
import json
import os
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
    make_environment_factory,
    playground_projection,
    reward_func,
)

TSX = str(ROOT / "node_modules" / ".bin" / "tsx")
TASKS, GROUP = 16, 8
SERVER = {}


def setUpModule():
    proc = subprocess.Popen(
        [TSX, "cli/serve.ts", "--port", "0", "--expert"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline()
    if not line.startswith("serving on http://"):
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    SERVER["proc"] = proc
    SERVER["base"] = line.split()[2]
    SERVER["client"] = Client(SERVER["base"])
    SERVER["envs"] = [e["name"] for e in SERVER["client"].get("/version")["envs"]]
    SERVER["tmp"] = tempfile.TemporaryDirectory()


def tearDownModule():
    SERVER["client"].close()
    SERVER["proc"].terminate()
    SERVER["proc"].wait(timeout=30)
    SERVER["proc"].stdout.close()
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


if __name__ == "__main__":
    unittest.main()
