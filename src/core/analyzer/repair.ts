/**
 * Repair and validation of an LLM analyzer's reply (issue #4, `http` analyzer): small models wrap JSON in code
 * fences, add a sentence before or after it, leave trailing commas, use snake_case keys, number steps the
 * trajectory does not have, or write 10 000 characters. `repairJson` turns the reply text into a JSON value;
 * `validateSkills` turns that value into `TrajectorySkills` or a reason in plain words. Neither throws.
 *
 * Skill text is cleaned (control characters removed, whitespace collapsed, length cut) but HTML is NOT escaped or
 * stripped: `<script>` stays literal text, because a skill is prompt text for the policy and escaping would change
 * what it reads. Every view must therefore render skills as text (Svelte `{skill}`, `textContent`), never as markup
 * (`{@html}`, `innerHTML`).
 */
import { z } from 'zod';
import type { TrajectorySkills } from './types';

/** Result of `repairJson`: the parsed value, or why the reply could not be read as JSON. */
export type RepairResult = { ok: true; value: unknown } | { ok: false; reason: string };

/** Result of `validateSkills`: the cleaned skills, or why the reply was unusable (plain words, shown to users). */
export type ValidateResult = { ok: true; skills: TrajectorySkills } | { ok: false; reason: string };

/** Default cap on one skill's length (characters, after cleaning). */
export const DEFAULT_MAX_SKILL_CHARS = 200;

/**
 * Read a model reply as JSON: strip a ``` / ```json code fence, take the outermost `{...}` (dropping stray text
 * around it), remove trailing commas before `}` / `]` (outside strings), then `JSON.parse`.
 * @param text the reply's message content.
 * @returns `{ok: true, value}`, or `{ok: false, reason}` with reason "reply was empty" or "reply was not JSON".
 */
export function repairJson(text: string): RepairResult {
  let s = text.trim();
  if (!s) return { ok: false, reason: 'reply was empty' };
  const fence = s.match(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/);
  if (fence) {
    // Use the fence's content when it holds an object, or when the reply is nothing but the fence.
    const inner = fence[1].trim();
    if (inner.includes('{') || !s.replace(fence[0], '').trim()) s = inner;
  }
  const a = s.indexOf('{');
  const b = s.lastIndexOf('}');
  if (a < 0 || b < a) return { ok: false, reason: s ? 'reply was not JSON' : 'reply was empty' };
  try {
    return { ok: true, value: JSON.parse(dropTrailingCommas(s.slice(a, b + 1))) };
  } catch {
    return { ok: false, reason: 'reply was not JSON' };
  }
}

/** Remove commas followed (after whitespace) by `}` or `]`, leaving string contents untouched. */
function dropTrailingCommas(s: string): string {
  let out = '';
  let inStr = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inStr) {
      out += c;
      if (c === '\\') out += s[++i] ?? '';
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    if (c === ',') {
      let j = i + 1;
      while (j < s.length && /\s/.test(s[j])) j++;
      if (s[j] === '}' || s[j] === ']') continue;
    }
    out += c;
  }
  return out;
}

// The reply after snake_case keys are folded into camelCase. Values of stepSkills are checked one by one below.
const ReplySchema = z.object({
  episodeSkill: z.string(),
  stepSkills: z.record(z.string(), z.unknown()).nullish(),
});

// Control characters other than whitespace, and bidi overrides (they can make displayed text lie about its order).
const CONTROL = /(?![\t\n\v\f\r])[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;
const STEP_KEY = /^(0|[1-9]\d*)$/;

/**
 * Clean one skill: drop control characters, collapse whitespace (newlines included) to single spaces, trim, and
 * cut to at most `maxChars` characters at the last word boundary (a hard cut when the first word alone is longer).
 * HTML is kept as literal text (see module doc).
 */
export function cleanSkill(text: string, maxChars = DEFAULT_MAX_SKILL_CHARS): string {
  const s = text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
  if (s.length <= maxChars) return s;
  const head = s.slice(0, maxChars + 1);
  const space = head.lastIndexOf(' ');
  let cut = space > 0 ? head.slice(0, space) : head.slice(0, maxChars);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // never split a surrogate pair
  return cut.trimEnd();
}

/**
 * Validate a parsed reply as one trajectory's skills (zod). Accepts `episodeSkill` or `episode_skill`, and
 * `stepSkills` or `step_skills` (missing or null = no step skills). Step keys that are not integers in
 * [0, nSteps) are dropped, as are entries whose value is not a string or is empty after cleaning; of the rest the
 * K lowest indices are kept. Every skill goes through `cleanSkill(·, maxChars)`.
 * @param raw the value from `repairJson`.
 * @param nSteps the trajectory's step count (valid keys 0..nSteps−1).
 * @param K max step skills kept (integer ≥ 0).
 * @param maxChars max characters per skill (integer ≥ 1; default 200).
 * @returns `{ok: true, skills}` or `{ok: false, reason}`; reasons: "reply JSON was not an object",
 *   "episodeSkill missing or not a string", "episodeSkill was empty",
 *   "stepSkills was not an object keyed by step number".
 */
export function validateSkills(raw: unknown, nSteps: number, K: number, maxChars = DEFAULT_MAX_SKILL_CHARS): ValidateResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'reply JSON was not an object' };
  const o = raw as Record<string, unknown>;
  const parsed = ReplySchema.safeParse({ episodeSkill: o.episodeSkill ?? o.episode_skill, stepSkills: o.stepSkills ?? o.step_skills });
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    return { ok: false, reason: field === 'stepSkills' ? 'stepSkills was not an object keyed by step number' : 'episodeSkill missing or not a string' };
  }
  const episodeSkill = cleanSkill(parsed.data.episodeSkill, maxChars);
  if (!episodeSkill) return { ok: false, reason: 'episodeSkill was empty' };
  const kept: [number, string][] = [];
  for (const [key, value] of Object.entries(parsed.data.stepSkills ?? {})) {
    if (!STEP_KEY.test(key) || typeof value !== 'string') continue;
    const step = Number(key);
    const skill = cleanSkill(value, maxChars);
    if (step < nSteps && skill) kept.push([step, skill]);
  }
  kept.sort((x, y) => x[0] - y[0]);
  const stepSkills: Record<number, string> = {};
  for (const [step, skill] of kept.slice(0, Math.max(0, K))) stepSkills[step] = skill;
  return { ok: true, skills: { episodeSkill, stepSkills } };
}
