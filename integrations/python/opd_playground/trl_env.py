"""The playground's environments as a TRL `environment_factory` class, over `npm run serve`.

TRL's GRPOTrainer makes one instance per rollout (`environment_factory=PlaygroundToolEnv`, the class), calls
`reset(**row)` with the dataset row's columns (export-tasks rows carry `env_kwargs`: env, preset, split, index) and
appends the string it returns to the prompt, exposes every public method but `reset` / `get_reward` as a tool (here
one, `act`), and scores the episode with `get_reward()` (or `reward_func`, for TRL versions without it). An action
after the episode ended raises ValueError, which TRL hands back to the model as the tool's answer.

Configure the server and the env with `make_environment_factory(base_url, env, preset)` (a subclass: TRL needs a class
whose constructor takes no argument), or the OPD_SERVE_URL environment variable.
"""

import os
import random

from .client import Client, row_index
from .replies import CREATE, RESET, STEP


def _listed(actions):
    """Admissible actions as the tool shows them; an open form such as `search[` as `search[...]`."""
    return ", ".join(a + "...]" if a.endswith("[") else a for a in actions) or "(none: the episode is over)"


class PlaygroundToolEnv:
    """One server environment, reset to a new task per rollout."""

    base_url = os.environ.get("OPD_SERVE_URL", "http://127.0.0.1:8700")
    env = None  # the server's default env
    preset = None  # the env's default preset
    split = "train"  # tasks drawn when a row names none

    def __init__(self):
        self._client = Client(self.base_url)
        self._id = None
        self._made = None
        self.reward, self.done, self.won, self.steps = 0.0, False, False, 0
        self.task = ""

    def reset(self, env_kwargs=None, **row):
        """Start a task: the row's env_kwargs (env, preset, split, index), else a random task of `split`.

        A row's `env` or `preset` that is not this instance's env's makes a new server env of the row's (the old one
        is closed): one instance is one rollout, so it plays the row's task wherever it comes from. Returns the prompt
        text (task, first observation, admissible actions, the step limit). Raises ValueError naming the field when
        env_kwargs is not a dict or its `index` is not an int >= 0, before any request; ServerError on a refusal;
        ServerReplyError when a reply lacks a field read or holds another type (replies.CREATE, RESET)."""
        if env_kwargs is not None and not hasattr(env_kwargs, "keys"):
            row_index(env_kwargs, "reset: env_kwargs")  # raises: not a dict
        kw = dict(env_kwargs or {})
        index = row_index(kw, "reset: env_kwargs") if "index" in kw else random.randrange(1_000_000)
        env, preset = kw.get("env", self.env), kw.get("preset", self.preset)
        if self._id is None or self._made != (env, preset):
            if self._id is not None:
                self._client.post("/close", {"env_idx": self._id})
                self._id = None
            body = {k: v for k, v in (("env", env), ("preset", preset)) if v is not None}
            self._id, self._made = self._client.post("/create", body, CREATE)["id"], (env, preset)
        split = kw.get("split", self.split)
        r = self._client.post("/reset", {"env_idx": self._id, "split": split, "index": index}, RESET)
        self.reward, self.done, self.won, self.steps = 0.0, False, False, 0
        self.task = r["task"]
        return (
            f"Your task is to: {r['task']}\n\n{r['observation']}\n\n"
            f"Admissible actions: {_listed(r['admissible_actions'])}\n\n"
            f"Call the act tool with one admissible action at a time, at most {r['max_steps']} actions."
        )

    def act(self, action: str) -> str:
        """
        Take one action in the text environment and see what happens.

        Args:
            action: One admissible action, written as listed (e.g. "go to desk 1"); an action listed as
                "search[...]" takes your own words inside the brackets (e.g. "search[red running shoes]").

        Returns:
            The environment's answer, and the actions admissible next.
        """
        if self.done:
            raise ValueError("The episode is over: no more actions are taken.")
        r = self._client.post("/step", {"env_idx": self._id, "action": action}, STEP)
        info = r["info"]
        self.reward += float(r["reward"])
        self.done, self.won, self.steps = bool(r["done"]), bool(info["won"]), int(info["steps"])
        end = f"\n\nThe episode is over: {'success' if self.won else 'failure'}." if self.done else ""
        return f"{r['observation']}\n\nAdmissible actions: {_listed(info['admissible_actions'])}{end}"

    def get_reward(self) -> float:
        """The episode's total reward (1.0 for a solved task; a partial purchase score in a shop)."""
        return self.reward

    def _close(self):
        if self._id is not None:
            self._client.post("/close", {"env_idx": self._id})
            self._id = None
        self._client.close()


def reward_func(environments, **kwargs):
    """TRL reward function: each rollout's environment reward (`environments`: the rollouts' PlaygroundToolEnv
    instances; returns one float per rollout, 1.0 for a solved task, 0.0 before any step)."""
    return [float(env.reward) for env in environments]


def make_environment_factory(base_url=None, env=None, preset=None, split="train"):
    """A PlaygroundToolEnv subclass bound to a server (`base_url`, default OPD_SERVE_URL or http://127.0.0.1:8700), an
    env and a preset (None: the server's defaults) and the `split` of rows without one: pass it as
    `environment_factory`. Nothing is requested until an instance's `reset` (which lists its errors)."""
    attrs = {"env": env, "preset": preset, "split": split}
    if base_url is not None:
        attrs["base_url"] = base_url
    return type("PlaygroundToolEnv", (PlaygroundToolEnv,), attrs)
