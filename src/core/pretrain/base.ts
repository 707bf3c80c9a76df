/**
 * The shipped base policy's manifest: what the weights are, how they were made, and what they measure.
 * Files: `public/base/<stem>.json` (this manifest) next to `public/base/<stem>.safetensors`, with the env's stem for
 * the preset (`baseStem`: EnvSpec.baseStem, by default `<env>-<preset>`).
 * A manifest whose vocabulary hash or environment version does not match the code is refused with an error
 * saying which, and how to regenerate (the exact command is in the manifest).
 */
import { z } from 'zod';
import type { EnvSpec } from '../envs/types';
import { vocabHash, type Tokenizer } from '../tokenizer/tokenizer';
import { sha256Hex } from '../sha256';
import { counted } from '../count-text';
import { MODEL_SIZES } from '../model/config';

/** Success of one split: overall and per task type (fractions in [0, 1]). */
const SplitRate = z.object({
  successRate: z.number(),
  episodes: z.number().int(),
  byTaskType: z.record(z.string(), z.object({ successRate: z.number(), episodes: z.number().int() })),
});

/** A `SkillSensitivity` (measure.ts): steps, mean log-probs in nats without / with the step skill, and the gain. */
const SensitivityStats = {
  steps: z.number().int(),
  logpNoSkill: z.number(),
  logpWithSkill: z.number(),
  gainNats: z.number(),
};
/** Overall, and per task type where measured (manifests made before the per-type breakdown lack it). */
const Sensitivity = z.object({
  ...SensitivityStats,
  byTaskType: z.record(z.string(), z.object(SensitivityStats)).optional(),
});

/** Manifest schema (format 1). */
export const BaseManifestSchema = z.object({
  format: z.literal(1),
  env: z.string(),
  preset: z.string(),
  model: z.enum(MODEL_SIZES),
  /**
   * A model grown from weights of a smaller size (core/model/grow.ts, `pretrain --init`): that size and the hex sha256
   * of its weights file. Absent: not grown.
   */
  grownFrom: z.object({ model: z.enum(MODEL_SIZES), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
  /** Weights file name, relative to the manifest's folder. */
  file: z.string().regex(/^[A-Za-z0-9._-]+\.safetensors$/),
  /** Hex sha256 of the weights file. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().positive(),
  vocabHash: z.string(),
  envVersions: z.record(z.string(), z.string()),
  /** The exact command that regenerates the weights. */
  command: z.string(),
  seed: z.number().int(),
  backend: z.string(),
  /** Pretraining settings (PretrainConfig) as used. */
  pretrain: z.record(z.string(), z.unknown()),
  /** Wall-clock seconds of the pretraining run and the machine it ran on. */
  trainSeconds: z.number(),
  machine: z.string(),
  /** Measured success (temperature 0.4, admissible decoding): split → hint mode → rates. */
  measured: z.record(z.string(), z.record(z.string(), SplitRate)).optional(),
  /** Mean log-prob (nats) of the expert action on held-out steps, without / with the correct step skill. */
  skillSensitivity: Sensitivity.optional(),
  /** The same off the expert's path (a demonstrator with 50% random moves): only reading the skill helps there. */
  skillSensitivityOffPath: Sensitivity.optional(),
});

/**
 * Where a run's weights start (RunConfig.init): `base` = the shipped pretrained base policy of the env and preset
 * (this module's manifest and weights), `scratch` = a fresh seeded init.
 */
export const INIT_SOURCES = ['base', 'scratch'] as const;

/** Where a run's initial weights come from: weights the user named, the shipped base policy, or a fresh init. */
export type StartKind = 'weights' | 'base' | 'scratch';

/**
 * The start decision shared by the page (worker/weights.ts `resolveStart`: a stored checkpoint) and the CLI
 * (cli/train-start.ts `resolveStart`: `--init FILE`): named weights win over the config's `init`; otherwise `base`
 * starts from the base policy and `scratch` from a fresh seeded init. (What happens when the base policy cannot be
 * used is each front end's own: the page falls back to scratch with a notice, the CLI stops with the reason.)
 */
export function startKind(init: (typeof INIT_SOURCES)[number], namedWeights: boolean): StartKind {
  if (namedWeights) return 'weights';
  return init === 'base' ? 'base' : 'scratch';
}

/** A parsed base-policy manifest. */
export type BaseManifest = z.infer<typeof BaseManifestSchema>;

/**
 * The file stem of an env's shipped base policy for a preset: the spec's `baseStem(preset)`, by default
 * `<env>-<preset>` (EnvSpec.baseStem).
 */
export function baseStem(spec: Pick<EnvSpec, 'name' | 'baseStem'>, preset: string): string {
  return spec.baseStem?.(preset) ?? `${spec.name}-${preset}`;
}

/** Relative path (under `public/`) of the manifest for an env and preset, `base/<stem>.json` (`baseStem`). */
export function baseManifestPath(spec: Pick<EnvSpec, 'name' | 'baseStem'>, preset: string): string {
  return `base/${baseStem(spec, preset)}.json`;
}

/** Relative path (under `public/`) of the weights for an env and preset, `base/<stem>.safetensors` (`baseStem`). */
export function baseWeightsPath(spec: Pick<EnvSpec, 'name' | 'baseStem'>, preset: string): string {
  return `base/${baseStem(spec, preset)}.safetensors`;
}

/**
 * Parse and check a manifest against the code: schema, vocabulary hash, environment version.
 * @throws Error naming the bad field, or the mismatch and the command to regenerate the weights.
 */
export function checkBaseManifest(raw: unknown, spec: EnvSpec, tok: Tokenizer): BaseManifest {
  const r = BaseManifestSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(
      `base manifest: field "${i.path.join('.') || '(root)'}" ${i.message}; regenerate it with npm run pretrain`,
    );
  }
  const m = r.data;
  if (m.env !== spec.name) throw new Error(`base manifest is for env "${m.env}", not "${spec.name}"`);
  const vh = vocabHash(tok);
  if (m.vocabHash !== vh)
    throw new Error(
      `base manifest: vocabulary hash ${m.vocabHash} does not match the code's ${vh} (the tokenizer ` +
        `changed); regenerate with: ${m.command}`,
    );
  if (m.envVersions[spec.name] !== spec.version)
    throw new Error(
      `base manifest: environment version ${m.envVersions[spec.name] ?? '(none)'} does not match the ` +
        `code's ${spec.version}; regenerate with: ${m.command}`,
    );
  return m;
}

/** Check weights bytes against the manifest. @throws Error if the size or sha256 differs (corrupt or replaced file). */
export async function checkBaseWeights(bytes: Uint8Array, m: BaseManifest): Promise<void> {
  if (bytes.length !== m.bytes)
    throw new Error(
      `base weights ${m.file}: ${counted(bytes.length, 'byte')}, manifest says ${m.bytes} (corrupt or truncated); ` +
        `regenerate with: ${m.command}`,
    );
  const h = await sha256Hex(bytes);
  if (h !== m.sha256)
    throw new Error(
      `base weights ${m.file}: sha256 ${h} differs from the manifest's ${m.sha256} (corrupt or replaced); ` +
        `regenerate with: ${m.command}`,
    );
}
