"""The playground's environments in verl-agent (and the OPID reference code, a verl-agent fork), over `npm run serve`.

`PlaygroundEnvs` is the vectorised env verl-agent's managers drive: `reset(kwargs)` -> (observations, infos) and
`step(actions)` -> (observations, rewards, dones, infos), `env_num * group_n` environments whose groups share a task.
`PlaygroundEnvironmentManager` is an `EnvironmentManagerBase` (agent_system/environments/base.py) that writes the
prompt: task, the last `env.history_length` observations and actions, the observation, the admissible actions, and
verl-agent's `<think>` / `<action>` instructions (verl_manager.py, re-exported here with `playground_projection`).
`info['won']` and `info['is_action_valid']` are set as verl-agent's success evaluator and invalid-action penalty read
them. Hook it into `make_envs` as docs/scale-out.md shows.
"""

import random

from .client import Client, check_row_env, row_index
from .replies import CREATE, RESET, STEP
from .verl_manager import PROMPT, PlaygroundEnvironmentManager, playground_projection

__all__ = ["PlaygroundEnvs", "PlaygroundEnvironmentManager", "playground_projection", "build_playground_envs", "PROMPT"]


class PlaygroundEnvs:
    """`env_num * group_n` server environments of `env` / `preset`, in groups of `group_n` sharing a task.

    The constructor creates them all (POST /create); when one creation fails it closes those already made and
    re-raises (ServerError, e.g. 429 at the server's --max-envs; ServerUnreachable when no server runs;
    ServerReplyError for a reply without a valid `id`). `env` and
    `preset` left out are the server's defaults: afterwards `self.env` / `self.preset` hold the ones the server made
    (its `/create` answer names them)."""

    def __init__(self, base_url, env=None, preset=None, env_num=1, group_n=1, split="train", seed=0, client=None):
        self.client = client or Client(base_url)
        self.env, self.preset, self.env_num, self.group_n, self.split = env, preset, env_num, group_n, split
        self.batch_size = env_num * group_n
        self._rng = random.Random(seed)
        body = {k: v for k, v in (("env", env), ("preset", preset)) if v is not None}
        self.ids = []
        try:
            for _ in range(self.batch_size):
                made = self.client.post("/create", body, CREATE)
                self.ids.append(made["id"])
                self.env, self.preset = made.get("env", self.env), made.get("preset", self.preset)
        except BaseException:  # e.g. 429 at --max-envs: the envs made so far are not left open on the server
            self._close_quietly()
            raise
        self.admissible = [[] for _ in self.ids]
        self._last = [None] * self.batch_size  # (observation, info) of a done env, repeated while it is stepped

    def reset(self, kwargs=None):
        """Reset every env. `kwargs`: verl-agent's `env_kwargs` rows ({env, preset, split, index}, one per env, or
        one per group); None draws `env_num` tasks of `split`. A row's `split` addresses its task (sent to the server
        as it is; `split` is the default for rows without one). Returns (observations, infos).

        Every row is checked before any env is reset: ValueError naming the row and the field when a row is not a
        dict, has no `index` or a bad one (row_index), or names another `env` or `preset` than these environments'
        (check_row_env: the fix is environments of the row's preset, or the tasks of this one). A reply of the server
        without one of the fields read, or with a value of another type, raises ServerReplyError naming the field
        and the reply (replies.RESET)."""
        rows = list(kwargs) if kwargs is not None else [
            {"split": self.split, "index": self._rng.randrange(1_000_000)} for _ in range(self.env_num)
        ]
        per = self.group_n if len(rows) == self.env_num and self.group_n > 1 else 1  # one row per group: repeated
        rows = [row for row in rows for _ in range(per)]
        if len(rows) != self.batch_size:
            raise ValueError(f"reset: {len(rows)} env_kwargs rows for {self.batch_size} environments")
        indices = []
        for k, row in enumerate(rows):
            where = f"reset: env_kwargs row {k // per}"  # the row as the caller numbered it
            indices.append(row_index(row, where))
            check_row_env(row, where, self.env, self.preset)
        observations, infos = [], []
        for i, (env_id, row) in enumerate(zip(self.ids, rows)):
            r = self.client.post("/reset", {"env_idx": env_id, "split": row.get("split", self.split),
                                            "index": indices[i]}, RESET)
            self.admissible[i], self._last[i] = r["admissible_actions"], None
            observations.append(r["observation"])
            infos.append({"task": r["task"], "task_type": r["task_type"], "admissible_actions": r["admissible_actions"],
                          "max_steps": r["max_steps"], "won": False})
        return observations, infos

    def step(self, actions):
        """Step every env with its action (`actions`: one string per env); returns (observations, rewards, dones,
        infos). A done env is not stepped again: it repeats its last answer, reward 0. Raises ServerError on a
        refusal, ServerReplyError on a reply without one of the fields read or of another type (replies.STEP)."""
        observations, rewards, dones, infos = [], [], [], []
        for i, (env_id, action) in enumerate(zip(self.ids, actions)):
            if self._last[i] is not None:
                observation, info = self._last[i]
                reward, done = 0.0, True
            else:
                r = self.client.post("/step", {"env_idx": env_id, "action": action}, STEP)
                observation, info, reward, done = r["observation"], r["info"], float(r["reward"]), bool(r["done"])
                self.admissible[i] = info["admissible_actions"]
                if done:
                    self._last[i] = (observation, info)
            observations.append(observation)
            rewards.append(reward)
            dones.append(done)
            infos.append(dict(info))
        return observations, rewards, dones, infos

    @property
    def get_admissible_commands(self):
        """The admissible actions of every env now (an attribute, as verl-agent's ALFWorld envs have it)."""
        return self.admissible

    def close(self):
        """Close every env on the server (POST /close) and the connection."""
        for env_id in self.ids:
            self.client.post("/close", {"env_idx": env_id})
        self.client.close()

    def _close_quietly(self):
        """Close the envs made so far, ignoring errors (the first error is the one raised)."""
        for env_id in self.ids:
            try:
                self.client.post("/close", {"env_idx": env_id})
            except Exception:  # noqa: BLE001 - cleanup after a failure: keep closing the rest
                pass
        self.ids = []
        self.client.close()


def build_playground_envs(base_url, env, preset, seed, env_num, group_n, is_train=True):
    """The vectorised envs for verl-agent's `make_envs` (train split for training, test-seen for validation)."""
    split = "train" if is_train else "test-seen"
    return PlaygroundEnvs(base_url, env, preset, env_num=env_num, group_n=group_n, split=split, seed=seed)
