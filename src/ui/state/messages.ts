/**
 * Plain-language field errors for the page. The core's ConfigIssue messages are written for the CLI (config keys,
 * zod wording, "accepted: an integer in [1, 256]"); the page names the field by its visible label and says the
 * rule in one sentence, e.g. "Tasks per step (B) must be an integer from 1 to 256." Pure functions.
 */
import { DEFAULT_CONFIG, describeField, RunConfigSchema, type ConfigIssue, type RunConfigKey } from '../../core/run/config';

/** The label each setting has on the page (top bar and left panel); other keys are shown as themselves. */
export const FIELD_LABELS: Partial<Record<RunConfigKey, string>> = {
  env: 'Environment',
  algo: 'Algorithm',
  model: 'Model',
  init: 'Start from',
  seed: 'Seed',
  preset: 'Preset',
  steps: 'Steps',
  tasksPerStep: 'Tasks per step (B)',
  groupSize: 'Group size (G)',
  learningRate: 'Learning rate',
  klBeta: 'KL weight (β)',
  miniBatches: 'Mini-batches',
  historyTurns: 'History (H)',
  lrSchedule: 'LR schedule',
  minLrRatio: 'Final LR ratio',
  stepAdvWeight: 'Step advantage (ω)',
  stepAdvGamma: 'Step discount (γ)',
  advNorm: 'Advantage normalisation',
  entropyCoef: 'Entropy bonus',
  clipEpsHigh: 'Upper clip (ε_high)',
  ppoEpochs: 'PPO epochs',
  lossAgg: 'Loss aggregation',
  targetKl: 'Target KL',
  maxStepKl: 'Max step KL',
  klBacktracks: 'KL line search',
  adamBeta1: 'Adam β₁',
  adamBeta2: 'Adam β₂',
  adamEps: 'Adam ε',
  maxGradNorm: 'Max grad norm',
  decoding: 'Decoding',
  evalEvery: 'Evaluate every',
  evalEpisodes: 'Eval episodes',
  backend: 'Backend',
  ablation: 'Ablation',
  lambdaSkill: 'Skill weight (λ_skill)',
  maxStepSkills: 'Step skills (K)',
  failedOnly: 'Failed rollouts only',
  skillZscore: 'Z-score A_skill',
  skillClip: 'Clip A_skill',
  skillMemoryTopK: 'Remembered skills',
  analyzer: 'Analyzer',
  analyzerUrl: 'Base URL',
  analyzerModel: 'Analyzer model',
  analyzerTimeoutMs: 'Timeout',
};

/** The visible label of a config key (the key itself when the page has no control for it). */
export function labelOf(key: string): string {
  return FIELD_LABELS[key as RunConfigKey] ?? key;
}

function isKey(key: string): key is RunConfigKey {
  return key in RunConfigSchema.shape;
}

/**
 * `describeField` in words for a sentence: "an integer in [1, 256]" → "an integer from 1 to 256"; switches (issue #4
 * failedOnly, skillZscore) → "true or false"; texts (analyzer URL, model) → "a text of at most N characters".
 */
export function acceptedText(key: RunConfigKey): string {
  const d = DEFAULT_CONFIG[key];
  if (typeof d === 'boolean') return 'true or false';
  if (typeof d === 'string' && describeField(key) === 'see the schema') {
    const max = (RunConfigSchema.shape[key] as unknown as { unwrap(): { maxLength: number | null } }).unwrap().maxLength;
    return max == null ? 'a text' : `a text of at most ${max} characters`;
  }
  return describeField(key).replace(/ in \[(.+), (.+)\]$/, ' from $1 to $2');
}

/**
 * One sentence for an issue of field `issue.field`, naming the field by its label.
 * @param value the value the control holds (NaN or '' = empty); undefined when unknown (e.g. from a link).
 */
export function plainIssue(issue: ConfigIssue, value?: unknown): string {
  const key = issue.field.split('.')[0];
  const label = labelOf(key);
  if (value === '' || (typeof value === 'number' && Number.isNaN(value)) || /received NaN/.test(issue.message))
    return `${label} is empty.`;
  // Schema issues end in "(accepted: …)" (core/run/config.ts zodIssues); the range says it all.
  if (isKey(key) && /\(accepted: /.test(issue.message)) return `${label} must be ${acceptedText(key)}.`;
  // Anything else is a cross-field rule or a link note ("must be ≤ tasksPerStep·groupSize (64); lower miniBatches
  // or raise B·G"): keep its words, naming fields by their labels. Only camelCase words are keys there: "the http
  // analyzer needs a model name" means the words, not the fields.
  const text = issue.message
    .replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => (isKey(w) && FIELD_LABELS[w] ? FIELD_LABELS[w] : w))
    .replace(/\.?$/, '.');
  return /^must /.test(text) ? `${label} ${text}` : `${label}: ${text}`;
}

/**
 * The text after a link key in the link notice (the key itself is shown as code), e.g. "steps: must be an integer
 * from 1 to 100000; ignored" for `#steps=abc`; other notes ("unknown setting, ignored") are kept.
 */
export function linkIssueText(issue: ConfigIssue): string {
  const key = issue.field.split('.')[0];
  if (isKey(key) && /\(accepted: /.test(issue.message)) return `must be ${acceptedText(key)}; ignored`;
  return issue.message;
}
