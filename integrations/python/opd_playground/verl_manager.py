"""verl-agent's side of the playground's environments: the projection and the environment manager (verl_agent.py).

`playground_projection` is verl-agent's action projection: the text of the last `<action>...</action>`, valid only
with one and a `<think>` block. `PlaygroundEnvironmentManager` is an `EnvironmentManagerBase`
(agent_system/environments/base.py) that writes the prompt: task, the last `env.history_length` observations and
actions, the observation, the admissible actions, and verl-agent's `<think>` / `<action>` instructions;
`info['is_action_valid']` is the projection's check and the env's validity together, as verl-agent's invalid-action
penalty reads it.
"""

try:  # inside verl-agent: its base class and numpy conversion
    from agent_system.environments.base import EnvironmentManagerBase, to_numpy
except ImportError:  # stand-alone (tests): the base class's constructor and close, lists instead of arrays

    class EnvironmentManagerBase:
        """A stand-in for verl-agent's base class: it keeps the envs, the projection and the config."""

        def __init__(self, envs, projection_f, config):
            self.envs, self.projection_f, self.config = envs, projection_f, config

        def close(self):
            """Close the envs."""
            self.envs.close()

    def to_numpy(data):
        """verl-agent converts to numpy arrays; stand-alone, lists stay lists."""
        return data


def _cfg(config, *path, default=None):
    """config.a.b (OmegaConf or dict), or `default` when a key is missing."""
    for key in path:
        config = config.get(key) if isinstance(config, dict) else getattr(config, key, None)
        if config is None:
            return default
    return config


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
        """Reset the envs to `kwargs` (env_kwargs rows); returns ({text, image, anchor}, infos)."""
        observations, infos = self.envs.reset(kwargs)
        self.tasks = [info["task"] for info in infos]
        self.history = [[] for _ in observations]
        self.previous, self.done = list(observations), [False] * len(observations)
        return {"text": self.build_text_obs(observations), "image": None, "anchor": list(observations)}, infos

    def step(self, text_actions):
        """Project the model's texts to actions and step; returns ({text, image, anchor}, rewards, dones, infos)."""
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
