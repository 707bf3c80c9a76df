/**
 * Repair and validation of an LLM analyzer's reply (`http` analyzer): small models wrap JSON in code
 * fences, add a sentence before or after it, leave trailing commas, use snake_case keys, number steps the
 * trajectory does not have, or write 10 000 characters; reasoning models put a `<think>…</think>` block first.
 * `stripThinking` drops that block; `repairJson` turns the reply text into a JSON value (syntax repair by the
 * `jsonrepair` package); `validateSkills` turns that value into `TrajectorySkills` or a reason in plain words.
 * None of them throws.
 *
 * Skill text is cleaned (control characters removed, whitespace collapsed, length cut) but HTML is NOT escaped or
 * stripped: `<script>` stays literal text, because a skill is prompt text for the policy and escaping would change
 * what it reads. Every view must therefore render skills as text (Svelte `{skill}`, `textContent`), never as markup
 * (`{@html}`, `innerHTML`).
 */
import { jsonrepair } from 'jsonrepair';
import { z } from 'zod';
import type { TrajectorySkills } from './types';

/** Result of `repairJson`: the parsed value, or why the reply could not be read as JSON. */
export type RepairResult = { ok: true; value: unknown } | { ok: false; reason: string };

/** Result of `validateSkills`: the cleaned skills, or why the reply was unusable (plain words, shown to users). */
export type ValidateResult = { ok: true; skills: TrajectorySkills } | { ok: false; reason: string };

/** Default cap on one skill's length (characters, after cleaning). */
export const DEFAULT_MAX_SKILL_CHARS = 200;

/** `repairJson`'s reason for a reply with no JSON object in it. */
export const NOT_JSON = 'reply was not JSON';

/**
 * The start of a reply for a message that quotes it: whitespace runs as one space, at most 60 characters (the first 57
 * and "…" when longer), in double quotes, e.g. `"Sure! Here is the analysis…"`.
 */
export function replyExcerpt(text: string): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return `"${s.length > 60 ? s.slice(0, 57).trimEnd() + '…' : s}"`;
}

/**
 * Result of `stripThinking`: the reply without its reasoning, or why no answer is left (plain words, shown to users).
 */
export type StripResult = { ok: true; text: string } | { ok: false; reason: string };

// Reasoning models (DeepSeek-R1, QwQ, Qwen3, … through Ollama, vLLM, llama.cpp, LM Studio) write their thoughts in
// such a block before the answer when the server does not split them off into `reasoning_content`.
const THINK_CLOSE = /<\/(think|thinking|reasoning|thought)>/gi;
const THINK_OPEN = /<(think|thinking|reasoning|thought)>/i;
// gpt-oss (harmony format) when the server passes its channels through as text.
const HARMONY_FINAL = '<|channel|>final<|message|>';

/**
 * Drop a reasoning model's thinking from a reply: everything up to the last `</think>` (also `</thinking>`,
 * `</reasoning>`, `</thought>`; a lone closing tag counts too, as DeepSeek-R1's template opens the block in the
 * prompt), a trailing unclosed block after the answer, and gpt-oss's analysis channel (only the text after
 * `<|channel|>final<|message|>` is kept). Tag names are case-insensitive. Never throws.
 * @param text the reply's message content.
 * @returns `{ok: true, text}` (the answer, untrimmed; unchanged when there is no thinking), or `{ok: false, reason}`:
 *   "the reply was cut inside a <think> block; raise max_tokens or use a non-reasoning model" (a block opened at the
 *   start is never closed), "the reply held only a <think> block and no answer after it; turn thinking off or use a
 *   non-reasoning model", or "the reply held only gpt-oss's analysis channel and no final answer; raise max_tokens".
 */
export function stripThinking(text: string): StripResult {
  let s = text;
  const f = s.lastIndexOf(HARMONY_FINAL);
  if (f >= 0) s = s.slice(f + HARMONY_FINAL.length).replace(/<\|(return|end|call)\|>\s*$/, '');
  else if (/<\|channel\|>(analysis|commentary)/.test(s))
    return {
      ok: false,
      reason: "the reply held only gpt-oss's analysis channel and no final answer; raise max_tokens",
    };
  let tag = '';
  let end = -1;
  for (const m of s.matchAll(THINK_CLOSE)) [tag, end] = [m[1].toLowerCase(), m.index + m[0].length];
  if (end >= 0) s = s.slice(end);
  const open = THINK_OPEN.exec(s);
  if (open) {
    if (!s.slice(0, open.index).trim())
      return {
        ok: false,
        reason:
          `the reply was cut inside a <${open[1].toLowerCase()}> block; raise max_tokens or use a ` +
          `non-reasoning model`,
      };
    s = s.slice(0, open.index);
  }
  if (tag && !s.trim())
    return {
      ok: false,
      reason:
        `the reply held only a <${tag}> block and no answer after it; turn thinking off or use a ` +
        `non-reasoning model`,
    };
  return { ok: true, text: s };
}

/**
 * Read a model reply as JSON: drop thinking (`stripThinking`), strip a ``` / ```json code fence, find the complete
 * top-level `{...}` objects in the text (stray sentences around them are ignored), and parse each with `JSON.parse`,
 * or, when that fails, after repairing it with the `jsonrepair` package (single quotes, trailing commas, unquoted
 * keys, comments, Python `True`/`None` …). The first object with a string `episodeSkill` / `episode_skill` wins,
 * else the first object that parses. A byte-order mark and surrounding whitespace are ignored.
 * @param text the reply's message content.
 * @returns `{ok: true, value}`, or `{ok: false, reason}` with a `stripThinking` reason, "reply was empty",
 *   "reply JSON was cut off before its closing brace" (an object starts but never ends), or "reply was not JSON".
 */
export function repairJson(text: string): RepairResult {
  const th = stripThinking(text);
  if (!th.ok) return th;
  let s = th.text.trim(); // trim() also drops a byte-order mark
  if (!s) return { ok: false, reason: 'reply was empty' };
  const fence = s.match(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/);
  if (fence) {
    // Use the fence's content when it holds an object, or when the reply is nothing but the fence.
    const inner = fence[1].trim();
    if (inner.includes('{') || !s.replace(fence[0], '').trim()) s = inner;
  }
  if (!s) return { ok: false, reason: 'reply was empty' };
  let first: { value: unknown } | undefined;
  for (const c of topLevelObjects(s)) {
    const v = parseLoose(c);
    if (!v) continue;
    const o = v.value as Record<string, unknown>;
    if (typeof (o.episodeSkill ?? o.episode_skill) === 'string') return { ok: true, value: v.value };
    first ??= v;
  }
  if (first) return { ok: true, value: first.value };
  const a = s.indexOf('{');
  const b = s.lastIndexOf('}');
  if (a >= 0 && b > a) {
    const v = parseLoose(s.slice(a, b + 1));
    if (v) return { ok: true, value: v.value };
  }
  if (a >= 0 && b < a && /^\{\s*["']/.test(s.slice(a)))
    return { ok: false, reason: 'reply JSON was cut off before its closing brace' };
  return { ok: false, reason: NOT_JSON };
}

/** `JSON.parse`, else `jsonrepair` then `JSON.parse`; only a plain object counts. */
function parseLoose(s: string): { value: unknown } | undefined {
  for (const read of [(x: string) => JSON.parse(x), (x: string) => JSON.parse(jsonrepair(x))]) {
    try {
      const value: unknown = read(s);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { value };
    } catch {
      // try the next reader
    }
  }
  return undefined;
}

/**
 * The balanced top-level `{...}` substrings of `s`, in order. Braces inside strings do not count; a `'` opens a
 * string only after `{`, `[`, `:` or `,` (so an apostrophe in a word does not), and `\\` escapes the next character.
 */
function topLevelObjects(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let quote = '';
  let prev = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) {
        quote = '';
        prev = c;
      }
      continue;
    }
    if (depth > 0 && (c === '"' || (c === "'" && '{[:,'.includes(prev)))) quote = c;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && depth > 0 && --depth === 0) out.push(s.slice(start, i + 1));
    if (!/\s/.test(c)) prev = c;
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
export function validateSkills(
  raw: unknown,
  nSteps: number,
  K: number,
  maxChars = DEFAULT_MAX_SKILL_CHARS,
): ValidateResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, reason: 'reply JSON was not an object' };
  const o = raw as Record<string, unknown>;
  const parsed = ReplySchema.safeParse({
    episodeSkill: o.episodeSkill ?? o.episode_skill,
    stepSkills: o.stepSkills ?? o.step_skills,
  });
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    return {
      ok: false,
      reason:
        field === 'stepSkills'
          ? 'stepSkills was not an object keyed by step number'
          : 'episodeSkill missing or not a string',
    };
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
