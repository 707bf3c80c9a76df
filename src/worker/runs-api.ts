/**
 * The run-record and weights-import methods of `TrainerApi` (contracts in api.ts), built over the worker's
 * session, run store and weights store, so the worker file only lists them. IndexedDB through persist.ts.
 */
import * as Comlink from 'comlink';
import { ENV_NAMES, getEnvSpec } from '../core/envs/registry';
import { buildTokenizer } from '../core/model/policy';
import { vocabHash } from '../core/tokenizer/tokenizer';
import { checkWeights, decodeSafetensors } from '../core/model/io';
import { DEFAULT_CONFIG } from '../core/run/config';
import { PACK_EXTENSION, isRunPack } from '../core/run-files/pack';
import type { TrainerApi, InitSource, ResumeResult, StorageUsage, WeightsInfo } from './api';
import type { TrainingSession } from './session';
import { checkName, type BaseLoader, type WeightsStore } from './weights';
import {
  PageRuns,
  addStoredTrajectories,
  exportRun,
  exportTrajectories,
  importRun,
  listRuns,
  runRecords,
} from './runs-library';
import { planResume, type ResumePlan } from './run-resume';
import type { RunStore } from './runs';
import { resumePageDistillation, type PageDistillation } from './distill';
import type { AgenticOpdRound } from '../core/algorithms/agentic-opd';
import { elsewhereMessage } from './run-locks';

import { sha256Hex } from '../core/sha256';

/** Environment name → version of this code, for every registered environment. */
export function currentEnvVersions(): Record<string, string> {
  return Object.fromEntries(ENV_NAMES.map((n) => [n, getEnvSpec(n).version]));
}

/** The browser's storage estimate, or null where the API is missing or fails. */
async function storageUsage(): Promise<StorageUsage | null> {
  try {
    const est = await (globalThis.navigator as Navigator | undefined)?.storage?.estimate?.();
    return est && typeof est.usage === 'number' && typeof est.quota === 'number'
      ? { usage: est.usage, quota: est.quota }
      : null;
  } catch {
    return null;
  }
}

/** What the run methods act on. */
export interface RunsApiDeps {
  session: TrainingSession;
  runs: PageRuns;
  runStore: RunStore;
  weights: WeightsStore;
  loadBase: BaseLoader;
  /**
   * Called before a resume reconfigures the session (so a configure still in flight does not win, and the explorer
   * shows the resumed run rather than a stored one opened before).
   */
  onReconfigure: () => void;
  /** Throws while a pretraining runs. */
  notPretraining: () => void;
  /** Stored run `id` was deleted (the explorer drops it if it shows it, so it no longer offers a run that is gone). */
  onDeleted?: (id: string) => void;
  /**
   * A resumed distillation's stage (its teacher pool rebuilt from the source run's stored checkpoints) is now
   * configured.
   */
  onDistill?: (d: PageDistillation) => void;
  /** Each teacher choice of a resumed distillation. */
  distillRound?: (r: AgenticOpdRound) => void;
}

/** The run methods of TrainerApi (api.ts documents each). */
export function runsApi(
  d: RunsApiDeps,
): Pick<
  TrainerApi,
  | 'listRuns'
  | 'renameRun'
  | 'deleteRun'
  | 'resumeRun'
  | 'exportRun'
  | 'exportTrajectories'
  | 'importRun'
  | 'runRecords'
  | 'watchRuns'
  | 'weightsSha256'
  | 'importWeights'
> {
  return {
    async listRuns() {
      const list = await listRuns(d.runStore);
      const elsewhere = await d.runs.locks.elsewhere();
      // A run this tab paused and another tab resumed since is that tab's now, not "recording" here.
      const active = d.runs.recordingId;
      const activeId = active !== null && elsewhere.includes(active) ? null : active;
      return { ...list, activeId, storage: await storageUsage(), elsewhere };
    },
    renameRun: (id, name) => d.runs.rename(id, name),
    async deleteRun(id) {
      if ((await d.runs.locks.elsewhere()).includes(id))
        throw new Error(elsewhereMessage('delete', await nameOf(d, id)));
      await d.runs.delete(id);
      d.onDeleted?.(id);
    },
    async resumeRun(id) {
      if (!(await d.runs.locks.hold(id))) throw new Error(elsewhereMessage('resume', await nameOf(d, id)));
      try {
        return await resumeStoredRun(d, id);
      } finally {
        d.runs.locks.follow(d.runs.recordingId); // the lock stays only when the resume took
      }
    },
    async exportRun(id) {
      const bytes = await exportRun(d.runStore, id);
      return Comlink.transfer(bytes, [bytes.buffer]);
    },
    exportTrajectories: (id) => exportTrajectories(d.runStore, id),
    importRun: (bytes, fileName) => importRun(d.runStore, bytes, fileName, currentEnvVersions()),
    runRecords: (ids) => runRecords(d.runStore, ids),
    async watchRuns(onStatus) {
      d.runs.watch(onStatus);
    },
    async weightsSha256(name) {
      const w = await d.weights.get(name);
      return w ? sha256Hex(w.bytes) : null;
    },
    importWeights: (name, bytes) => importWeights(d, name, bytes),
  };
}

/** The name of stored run `id` for a message (its id when it is not listed). */
async function nameOf(d: RunsApiDeps, id: string): Promise<string> {
  return (await listRuns(d.runStore)).runs.find((r) => r.id === id)?.name ?? id;
}

/** Resumes stored run `id` from its last checkpoint: the session reconfigured, its record and explorer continued. */
async function resumeStoredRun(d: RunsApiDeps, id: string): Promise<ResumeResult> {
  d.notPretraining();
  if (d.session.status === 'running') throw new Error('training is running; pause it first');
  const plan = await planResume(d.runStore, id, currentEnvVersions());
  // A distillation's teachers: its source run's stored checkpoints, checked before anything changes.
  const x = plan.distill;
  const distill = x
    ? resumePageDistillation(x.fromRun, x.val, x.sources, plan.config, (r) => d.distillRound?.(r))
    : null;
  d.onReconfigure();
  await d.session.configure(plan.config, undefined, { weights: plan.weights, state: plan.state });
  // The explorer starts with the stored steps up to the checkpoint (group 0 of each, as kept in trajectories.jsonl;
  // the cut text was validated by planResume).
  addStoredTrajectories(plan.texts.trajectories, d.session.trajectories);
  if (distill) {
    d.session.setAlgorithmInit(distill.algorithmInit);
    d.onDistill?.(distill);
  }
  d.runs.resume(plan);
  const i = plan.meta.init;
  const init: InitSource = {
    kind: i.kind,
    ...(i.sha256 ? { sha256: i.sha256 } : {}),
    label: `run "${plan.meta.name}" from its checkpoint of step ${plan.fromStep}`,
  };
  const baseChanged = i.kind === 'base' && i.sha256 ? await baseChangedNote(d, plan, i.sha256) : undefined;
  return {
    id,
    name: plan.meta.name,
    config: plan.config,
    fromStep: plan.fromStep,
    events: plan.events,
    init,
    ...(baseChanged ? { baseChanged } : {}),
  };
}

/** For a run started from the shipped base policy `sha256`: a note when that file changed or cannot be loaded now. */
async function baseChangedNote(d: RunsApiDeps, plan: ResumePlan, sha256: string): Promise<string | undefined> {
  const spec = getEnvSpec(plan.config.env);
  const was = `This run started from the shipped base policy with sha256 ${sha256.slice(0, 12)}…`;
  const still =
    'it continues from its own checkpoint (weights, Adam state and reference policy are stored in ' +
    'it), but a new run from the base policy would not start where this one did';
  try {
    const now = (await d.loadBase(spec, plan.config.preset, buildTokenizer(spec), plan.config.model)).manifest.sha256;
    if (now !== sha256) return `${was}; the shipped base policy is now ${now.slice(0, 12)}…: ` + `${still}.`;
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/\.$/, '') : String(e);
    return `${was}; the shipped base policy cannot be loaded now (${why}): ` + `${still}.`;
  }
  return undefined;
}

/** Stores `bytes` as weights `name` when they are safetensors this code can load; refuses a run file by name. */
async function importWeights(
  d: RunsApiDeps,
  name: string,
  bytes: Uint8Array,
): Promise<WeightsInfo & { sha256: string }> {
  const n = checkName(name);
  let modelSize: string;
  // A run file picked where weights are asked for: name it and where it belongs (not "not safetensors").
  if (isRunPack(bytes))
    throw new Error(
      `"${n}" cannot be imported: this is a run file (${PACK_EXTENSION}, a packed run record), not ` +
        `weights; import it with the Runs view's Import ${PACK_EXTENSION}, where Resume continues it`,
    );
  try {
    const w = decodeSafetensors(bytes);
    const env = Object.hasOwn(w.meta, 'env') && ENV_NAMES.includes(w.meta.env) ? w.meta.env : DEFAULT_CONFIG.env;
    const tok = buildTokenizer(getEnvSpec(env));
    checkWeights(w, { vocabSize: tok.size, vocabHash: vocabHash(tok) });
    modelSize = w.meta.modelSize; // checkWeights refused a missing or unknown one
  } catch (e) {
    throw new Error(`"${n}" cannot be imported: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const savedAt = Date.now();
  await d.weights.put({ name: n, bytes: bytes.slice(), modelSize, savedAt });
  return { name: n, modelSize, savedAt, sha256: await sha256Hex(bytes) };
}
