/**
 * A worker thread that plays evaluation jobs (src/core/rollout/eval-job.ts) for cli/eval-pool.ts: it starts the tfjs
 * backend named in `workerData.backend` once, then for each message `{ id, job, weights }` loads the weights
 * (savePolicy's safetensors bytes), plays the job and answers `{ id, ok: true, result }` or `{ id, ok: false, error }`.
 * The weights are loaded afresh for every job and disposed after it, so a job's result depends on its message only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { setupBackend, NODE_BACKENDS } from './backend';
import { getEnvSpec } from '../src/core/envs/registry';
import { buildTokenizer, disposePolicy, loadPolicy } from '../src/core/model/policy';
import { runEvalJob, type EvalJob } from '../src/core/rollout/eval-job';
import type { Tokenizer } from '../src/core/tokenizer/tokenizer';
import { SPLITS, type Split } from '../src/core/envs/types';
import { DECODINGS } from '../src/core/rollout/runner';
import { HINT_MODES, type HintMode } from '../src/core/envs/expert-hints';

/** The worker's start data: the tfjs backend to run on. */
const START = z.object({ backend: z.enum(NODE_BACKENDS) });
const count = z.number().int().nonnegative();
/** An `EvalJob` (src/core/rollout/eval-job.ts), field by field. */
const JOB = z.object({
  env: z.string(),
  preset: z.string(),
  split: z.enum(SPLITS as [Split, ...Split[]]),
  firstTask: count,
  episodes: count,
  temperature: z.number().positive(),
  decoding: z.enum(DECODINGS),
  historyTurns: count,
  maxActionTokens: z.number().int().positive(),
  seed: z.number().int(),
  streams: z.array(z.string()),
  hints: z.enum(HINT_MODES as [HintMode, ...HintMode[]]),
  episodeSkills: z.record(z.string(), z.string()).nullable(),
}) satisfies z.ZodType<EvalJob>;
/** One request: a job id, the job and the weights' bytes. */
const REQUEST = z.object({ id: z.number().int(), job: JOB, weights: z.instanceof(Uint8Array) });

const port = parentPort;
if (!port) throw new Error('cli/eval-worker.ts runs as a worker thread of cli/eval-pool.ts, not on its own');
const { backend } = START.parse(workerData);
const ready = setupBackend(backend);
const tokenizers = new Map<string, Tokenizer>();

port.on('message', async (msg: unknown) => {
  const req = REQUEST.safeParse(msg);
  if (!req.success) {
    const id =
      msg && typeof msg === 'object' && Object.hasOwn(msg, 'id') && Number.isInteger((msg as { id: unknown }).id)
        ? (msg as { id: number }).id
        : -1;
    const issue = req.error.issues[0];
    return port.postMessage({
      id,
      ok: false,
      error: `eval worker: malformed request (${issue?.path.join('.')}: ${issue?.message})`,
    });
  }
  const { id, weights, job } = req.data;
  try {
    await ready;
    const spec = getEnvSpec(job.env);
    let tok = tokenizers.get(spec.name);
    if (!tok) tokenizers.set(spec.name, (tok = buildTokenizer(spec)));
    const policy = loadPolicy(weights, tok);
    try {
      port.postMessage({ id, ok: true, result: await runEvalJob(policy, spec, job) });
    } finally {
      disposePolicy(policy);
    }
  } catch (e) {
    port.postMessage({ id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
