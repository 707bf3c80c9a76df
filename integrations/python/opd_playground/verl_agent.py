"""The playground's environments in verl-agent (and the OPID reference code, a verl-agent fork), over `npm run serve`.

`PlaygroundEnvs` is the vectorised env verl-agent's managers drive: `reset(kwargs)` -> (observations, infos) and
`step(actions)` -> (observations, rewards, dones, infos), `env_num * group_n` environments whose groups share a task.
`PlaygroundEnvironmentManager` is an `EnvironmentManagerBase` (agent_system/environments/base.py) that writes the
prompt: task, the last `env.history_length` observations and actions, the observation, the admissible actions, and
verl-agent's `<think>` / `<action>` instructions. `info['won']` and `info['is_action_valid']` are set as verl-agent's
success evaluator and invalid-action penalty read them. Hook it into `make_envs` as docs/scale-out.md shows.
"""

import random

from .client import Client

try:  # inside verl-agent: its base class and numpy conversion
    from agent_system.environments.base import EnvironmentManagerBase, to_numpy
except ImportError:  # stand-alone (tests): the base class's constructor and close, lists instead of arrays

    class EnvironmentManagerBase:
        def __init__(self, envs, projection_f, config):
            self.envs, self.projection_f, self.config = envs, projection_f, config

        def close(self):
            self.envs.close()

    def to_numpy(data):
        return data


def _cfg(config, *path, default=None):
    """config.a.b (OmegaConf or dict), or `default` when a key is missing."""
    for key in path:
        config = config.get(key) if isinstance(config, dict) else getattr(config, key, None)
        if config is None:
            return default
    return config


class PlaygroundEnvs:
    """`env_num * group_n` server environments of `env` / `preset`, in groups of `group_n` sharing a task."""

    def __init__(self, base_url, env=None, preset=None, env_num=1, group_n=1, split="train", seed=0, client=None):
        self.client = client or Client(base_url)
        self.env, self.env_num, self.group_n, self.split = env, env_num, group_n, split
        self.batch_size = env_num * group_n
        self._rng = random.Random(seed)
        body = {k: v for k, v in (("env", env), ("preset", preset)) if v is not None}
        self.ids = [self.client.post("/create", body)["id"] for _ in range(self.batch_size)]
        self.admissible = [[] for _ in self.ids]
        self._last = [None] * self.batch_size  # (observation, info) of a done env, repeated while it is stepped

    def reset(self, kwargs=None):
        """Reset every env. `kwargs`: verl-agent's `env_kwargs` rows ({split, index}, one per env, or one per group);
        None draws `env_num` tasks of `split`. Returns (observations, infos)."""
        rows = list(kwargs) if kwargs is not None else [
            {"split": self.split, "index": self._rng.randrange(1_000_000)} for _ in range(self.env_num)
        ]
        if len(rows) == self.env_num and self.group_n > 1:
            rows = [row for row in rows for _ in range(self.group_n)]
        if len(rows) != self.batch_size:
            raise ValueError(f"reset: {len(rows)} env_kwargs rows for {self.batch_size} environments")
        observations, infos = [], []
        for i, (env_id, row) in enumerate(zip(self.ids, rows)):
            if self.env is not None and row.get("env", self.env) != self.env:
                raise ValueError(f"reset: a row of env {row['env']!r} for environments of {self.env!r}")
            r = self.client.post("/reset", {"env_idx": env_id, "split": row.get("split", self.split),
                                            "index": int(row["index"])})
            self.admissible[i], self._last[i] = r["admissible_actions"], None
            observations.append(r["observation"])
            infos.append({"task": r["task"], "task_type": r["task_type"], "admissible_actions": r["admissible_actions"],
                          "max_steps": r["max_steps"], "won": False})
        return observations, infos

    def step(self, actions):
        """Step every env with its action. A done env is not stepped again: it repeats its last answer, reward 0."""
        observations, rewards, dones, infos = [], [], [], []
        for i, (env_id, action) in enumerate(zip(self.ids, actions)):
            if self._last[i] is not None:
                observation, info = self._last[i]
                reward, done = 0.0, True
            else:
                r = self.client.post("/step", {"env_idx": env_id, "action": action})
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
        for env_id in self.ids:
            self.client.post("/close", {"env_idx": env_id})
        self.client.close()


def playground_projection(text_actions):
    """verl-agent's projection: the text of the last <action>...</action>; valid only with one (and <think>)."""
    actions, valids = [], []
    for text in text_actions:
        start, end = text.rfind("<action>"), text.rfind("</action>")
        ok = 0 <= start < end and "<think>" in text and "</think>" in text
        actions.append(text[start + len("<action>"):end].strip() if 0 <= start < end else text.strip()[-200:])
        valids.append(ok)
    return actions, valids


PROMPT = """You are an expert agent in a text environment. Your task is to: {task}
{history}Your current observation is: {observation}
Your admissible actions of the current situation are: [{actions}].

Now it's your turn to take an action.
You should first reason step-by-step about the current situation. This reasoning process MUST be enclosed within \
<think> </think> tags.
Once you've finished your reasoning, you should choose an admissible action for current step and present it within \
<action> </action> tags."""


class PlaygroundEnvironmentManager(EnvironmentManagerBase):
    """verl-agent's environment manager for PlaygroundEnvs (history length: config.env.history_length)."""

    def __init__(self, envs, projection_f, config):
        super().__init__(envs, projection_f, config)
        self.history_length = int(_cfg(config, "env", "history_length", default=0))

    def reset(self, kwargs):
        observations, infos = self.envs.reset(kwargs)
        self.tasks = [info["task"] for info in infos]
        self.history = [[] for _ in observations]
        self.previous, self.done = list(observations), [False] * len(observations)
        return {"text": self.build_text_obs(observations), "image": None, "anchor": list(observations)}, infos

    def step(self, text_actions):
        actions, valids = self.projection_f(text_actions)
        observations, rewards, dones, infos = self.envs.step(actions)
        for i, info in enumerate(infos):
            if not self.done[i]:  # an env that was done is stepped with the batch, but it is not its history
                self.history[i].append((self.previous[i], actions[i]))
            self.done[i] = self.done[i] or bool(dones[i])
            info["is_action_valid"] = to_numpy(bool(valids[i] and info.get("is_action_valid", True)))
        self.previous = list(observations)
        text = self.build_text_obs(observations)
        return {"text": text, "image": None, "anchor": list(observations)}, to_numpy(rewards), to_numpy(dones), infos

    def build_text_obs(self, observations):
        """One prompt per env (see PROMPT); an open form such as `search[` is listed as `search[...]`."""
        prompts = []
        for i, observation in enumerate(observations):
            recent = self.history[i][-self.history_length:] if self.history_length > 0 else []
            history = "".join(f"[Observation {len(self.history[i]) - len(recent) + k + 1}: {o!r}, Action: {a!r}]\n"
                              for k, (o, a) in enumerate(recent))
            if history:
                history = f"Your most recent {len(recent)} observations and actions:\n{history}"
            listed = ", ".join(repr(a + "...]" if a.endswith("[") else a) for a in self.envs.admissible[i])
            prompts.append(PROMPT.format(task=self.tasks[i], history=history, observation=observation, actions=listed))
        return prompts


def build_playground_envs(base_url, env, preset, seed, env_num, group_n, is_train=True):
    """The vectorised envs for verl-agent's `make_envs` (train split for training, test-seen for validation)."""
    split = "train" if is_train else "test-seen"
    return PlaygroundEnvs(base_url, env, preset, env_num=env_num, group_n=group_n, split=split, seed=seed)
