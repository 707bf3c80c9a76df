"""Clients of `npm run serve` for trainers outside the OPD Playground (stdlib only; docs/scale-out.md).

- `Client`: JSON requests to the server; `ServerError`, `ServerUnreachable`, `ServerTimeout` (client.py); `ServerReplyError` for a
  reply that is not JSON or lacks a field the clients read (replies.py).
- verl-agent / the OPID reference code: `PlaygroundEnvs`, `build_playground_envs` (verl_agent.py),
  `PlaygroundEnvironmentManager`, `playground_projection` (verl_manager.py, re-exported by verl_agent.py).
- TRL: `PlaygroundToolEnv`, `make_environment_factory`, `reward_func` (trl_env.py).
"""

from .client import Client, ServerError, ServerTimeout, ServerUnreachable
from .replies import ServerReplyError
from .trl_env import PlaygroundToolEnv, make_environment_factory, reward_func
from .verl_agent import (
    PlaygroundEnvironmentManager,
    PlaygroundEnvs,
    build_playground_envs,
    playground_projection,
)

__all__ = [
    "Client",
    "ServerError",
    "ServerUnreachable",
    "ServerTimeout",
    "ServerReplyError",
    "PlaygroundEnvs",
    "PlaygroundEnvironmentManager",
    "playground_projection",
    "build_playground_envs",
    "PlaygroundToolEnv",
    "make_environment_factory",
    "reward_func",
]
