/**
 * Plain-language field errors for the page. The core's ConfigIssue messages are written for the CLI (config keys,
 * zod wording, "accepted: an integer in [1, 256]"); the page names the field by its visible label and says the
 * rule in one sentence, e.g. "Tasks per step (B) must be an integer from 1 to 256." Pure functions.
 */
import {
  DEFAULT_CONFIG,
  describeField,
  fieldMeta,
  fieldSchema,
  isRunConfigKey,
  RUN_CONFIG_KEYS,
  type ConfigIssue,
  type FieldJsonSchema,
  type RunConfigKey,
} from '../../core/run/config';

/**
 * The label of every setting on the page, from the schema (`fieldMeta(key).label`). A null-prototype object: look
 * keys up through `labelOf` (or check `isRunConfigKey` first).
 */
export const FIELD_LABELS: Readonly<Record<RunConfigKey, string>> = Object.freeze(
  Object.assign(
    Object.create(null) as Record<RunConfigKey, string>,
    Object.fromEntries(RUN_CONFIG_KEYS.map((k) => [k, fieldMeta(k).label])),
  ),
);

/** The visible label of a config key; anything else (an unknown link key, "constructor") is shown as itself. */
export function labelOf(key: string): string {
  return isRunConfigKey(key) ? FIELD_LABELS[key] : key;
}

/**
 * The accepted values of a field in words for a sentence, from its JSON-Schema facts: "one of nano, nano-deep, small,
 * base", "an integer from 1 to 256", "a number from 1e-7 to 1", "true or false", "a text of at most N characters".
 * `preset` (checked against the env's presets, not an enum) says so (core `describeField`).
 */
export function acceptedText(key: RunConfigKey): string {
  const j: FieldJsonSchema & { const?: unknown } = fieldSchema(key);
  if (j.const !== undefined) return String(j.const); // schemaVersion
  if (j.enum) return `one of ${j.enum.join(', ')}`;
  if (key === 'preset') return describeField(key);
  if (j.type === 'integer' || j.type === 'number') {
    const what = j.type === 'integer' ? 'an integer' : 'a number';
    if (j.minimum !== undefined && j.maximum !== undefined) return `${what} from ${j.minimum} to ${j.maximum}`;
    if (j.minimum !== undefined) return `${what} of at least ${j.minimum}`;
    if (j.maximum !== undefined) return `${what} of at most ${j.maximum}`;
    return what;
  }
  if (j.type === 'boolean') return 'true or false';
  if (j.type === 'string') return j.maxLength === undefined ? 'a text' : `a text of at most ${j.maxLength} characters`;
  return describeField(key);
}

/**
 * One sentence for an issue of field `issue.field`, naming the field by its label.
 * @param value the value the control holds (NaN or '' = empty); undefined when unknown (e.g. from a link).
 */
export function plainIssue(issue: ConfigIssue, value?: unknown): string {
  const key = issue.field.split('.')[0];
  const label = labelOf(key);
  if (value === '' || (typeof value === 'number' && Number.isNaN(value)) || /received NaN/.test(issue.message))
    // A number field says what to enter (its range); a text field's own rule says it in its other messages.
    return isRunConfigKey(key) && typeof DEFAULT_CONFIG[key] === 'number'
      ? `${label} is empty; enter ${acceptedText(key)}.`
      : `${label} is empty.`;
  // Schema issues end in "(accepted: …)" (core/run/config.ts zodIssues); the range says it all.
  if (isRunConfigKey(key) && /\(accepted: /.test(issue.message)) return `${label} must be ${acceptedText(key)}.`;
  // Anything else is a cross-field rule or a link note ("is 8, more than tasksPerStep·groupSize (4): …; set
  // miniBatches to 4 or fewer"): keep its words, naming fields by their labels. Only camelCase words are keys
  // there: "the http analyzer needs a model name" means the words, not the fields.
  const text = issue.message.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => labelOf(w)).replace(/\.?$/, '.');
  return /^(must|is) /.test(text) ? `${label} ${text}` : `${label}: ${text}`;
}

/**
 * The text after a link key in the link notice (the key itself is shown as code), e.g. "steps: must be an integer
 * from 1 to 100000; ignored" for `#steps=abc`; other notes ("unknown setting, ignored") are kept.
 */
export function linkIssueText(issue: ConfigIssue): string {
  const key = issue.field.split('.')[0];
  if (isRunConfigKey(key) && /\(accepted: /.test(issue.message)) return `must be ${acceptedText(key)}; ignored`;
  return issue.message;
}

/**
 * The heading of the link notice, fitted to its notes (decodeHash, state/link.ts): "… were ignored …" only when a
 * note, as the notice shows it (linkIssueText: a value out of the schema's range reads "must be …; ignored"), says a
 * setting was ignored or not accepted, "… given more than once …" only when one was repeated; notes
 * where every setting was used (a link percent-encoded once and decoded, an environment-version mismatch, an extra
 * `#` read as `&`) get "Notes on this link; its settings are used as read:". The schema-version note ("settings it
 * does not know are ignored") is about settings named in their own notes, so it does not count as ignoring.
 */
export function linkNoticeHeading(issues: readonly ConfigIssue[]): string {
  const ignored = issues.some((i) => i.field !== 'v' && /\b(ignored|not accepted)\b/.test(linkIssueText(i)));
  const repeated = issues.some((i) => /^given (twice|\d+ times); using /.test(i.message));
  if (ignored && repeated)
    return (
      'Some settings in this link were ignored or given more than once; defaults (or the last value) ' +
      'are used instead:'
    );
  if (ignored) return 'Some settings in this link were ignored; defaults are used instead:';
  if (repeated) return 'Some settings in this link were given more than once; the last value is used:';
  return 'Notes on this link; its settings are used as read:';
}
