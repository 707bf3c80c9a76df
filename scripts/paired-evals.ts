/**
 * Paired comparison of `npm run eval -- --json` outputs played on the same tasks with the same `--seed`:
 * `npx tsx scripts/paired-evals.ts BASE_FILE NAME=FILE [NAME=FILE …]`.
 *
 * Reads each file (gzip-compressed when its name ends in `.gz`): its `{"event":"episode",split,index,taskType,
 * success}` lines and its `summary` lines (other lines are skipped; every line is checked with a schema). Every NAME
 * file must hold exactly the base's episodes — the same (split, index) pairs with the same task type — and, where
 * both summaries say them, the same env, preset, seed, temperature, decoding, history and first task: otherwise
 * nothing is printed and the first difference is named, so unrelated or partial files are never paired. Prints a
 * Markdown table per split: one row per task type (in the env's order, registry.ts `inEnvOrder`) and the split's
 * total, with the base's success and, per named policy, its success and the paired difference to the base in percent
 * points, `mean ± s.e.` (s.e. of the mean of the per-episode differences, each −1, 0 or +1; `± —` over a single
 * episode, which has none). Exit 2 with the reason on bad input.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { z } from 'zod';
import { inEnvOrder } from '../src/core/envs/registry';

const USAGE = 'npx tsx scripts/paired-evals.ts BASE_FILE NAME=FILE [NAME=FILE …]';
const HELP =
  `usage: ${USAGE}\n` +
  'Success per task type of eval --json outputs (npm run eval -- --json … > FILE) played on the same tasks with\n' +
  'the same --seed, and each NAME − base paired over the episodes, mean ± s.e. in percent points.\n';
const die = (m: string): never => {
  process.stderr.write(`paired-evals: ${m}\nusage: ${USAGE}\n`);
  process.exit(2);
};

const Episode = z.object({
  event: z.literal('episode'),
  split: z.string(),
  index: z.number().int().nonnegative(),
  taskType: z.string(),
  success: z.boolean(),
});
type Episode = z.infer<typeof Episode>;
/** The summary fields two outputs must share to be paired (absent in older outputs: then not compared). */
const SAME = ['env', 'preset', 'seed', 'temperature', 'decoding', 'historyTurns', 'firstTask'] as const;
const Summary = z.object({ event: z.literal('summary'), split: z.string() }).passthrough();

/** One eval --json file: its episodes keyed `split/index`, and its summaries by split. */
interface EvalFile {
  file: string;
  episodes: Map<string, Episode>;
  summaries: Map<string, Record<string, unknown>>;
}

/** Parses `line` (line `n` of `file`) as JSON. @throws via die when it is not. */
function json(file: string, n: number, line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return die(`${file}:${n}: not JSON`);
  }
}

/** Reads an eval --json file. @throws via die on a missing file, a bad line, a repeated episode or no episode. */
function readEvalFile(file: string): EvalFile {
  if (file === '') die('NAME=FILE needs a file after "="');
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) die(`no file at ${file}`);
  const out: EvalFile = { file, episodes: new Map(), summaries: new Map() };
  const bytes = fs.readFileSync(file);
  (file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes)
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.includes('"event":"summary"')) {
        const r = Summary.safeParse(json(file, i + 1, line));
        if (!r.success) die(`${file}:${i + 1}: not a summary line (${r.error.issues[0].message})`);
        out.summaries.set(r.data!.split, r.data!);
      }
      if (!line.includes('"event":"episode"')) return;
      const r = Episode.safeParse(json(file, i + 1, line));
      if (!r.success) die(`${file}:${i + 1}: not an episode line (${r.error.issues[0].message})`);
      const key = `${r.data!.split}/${r.data!.index}`;
      if (out.episodes.has(key)) die(`${file}:${i + 1}: episode ${key} appears twice; give one eval output per file`);
      out.episodes.set(key, r.data!);
    });
  if (out.episodes.size === 0) die(`${file} holds no episode line: write it with npm run eval -- --json`);
  return out;
}

/** Dies naming the first way `other` cannot be paired with `base` episode by episode. */
function checkPairable(base: EvalFile, other: EvalFile): void {
  for (const [split, s] of base.summaries) {
    const o = other.summaries.get(split);
    for (const k of SAME)
      if (o && Object.hasOwn(s, k) && Object.hasOwn(o, k) && JSON.stringify(s[k]) !== JSON.stringify(o[k]))
        die(
          `${other.file}: ${split} was played with ${k} ${JSON.stringify(o[k])}, the base with ${JSON.stringify(s[k])}`,
        );
  }
  if (other.episodes.size !== base.episodes.size)
    die(`${other.file} holds ${other.episodes.size} episodes, the base ${base.episodes.size}: play the same tasks`);
  for (const [key, e] of base.episodes) {
    const m = other.episodes.get(key);
    if (!m) die(`${other.file} lacks episode ${key} of the base: play the same tasks`);
    if (m!.taskType !== e.taskType) die(`${other.file}: episode ${key} is ${m!.taskType}, in the base ${e.taskType}`);
  }
}

/** `mean ± s.e.` in percent points of per-episode differences (each −1, 0, +1); `± —` for one. */
function pairedText(d: number[]): string {
  const m = d.reduce((a, b) => a + b, 0) / d.length;
  const head = `${m >= 0 ? '+' : ''}${(100 * m).toFixed(1)}`;
  if (d.length < 2) return `${head} ± —`;
  const v = d.reduce((a, b) => a + (b - m) ** 2, 0) / (d.length - 1);
  return `${head} ± ${(100 * Math.sqrt(v / d.length)).toFixed(1)}`;
}

/** Success of `xs` in percent, one decimal. */
function pct(xs: Episode[]): string {
  return ((100 * xs.filter((e) => e.success).length) / xs.length).toFixed(1);
}

const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (argv.length < 2) die('give the base file and at least one NAME=FILE');
const base = readEvalFile(argv[0]);
const names = new Set<string>();
const others = argv.slice(1).map((a) => {
  const at = a.indexOf('=');
  if (at <= 0) die(`"${a}" is not NAME=FILE`);
  const name = a.slice(0, at);
  if (names.has(name)) die(`the name ${name} is given twice: give each file its own name`);
  names.add(name);
  const f = readEvalFile(a.slice(at + 1));
  checkPairable(base, f);
  return { name, f };
});

const all = [...base.episodes.values()];
for (const split of [...new Set(all.map((e) => e.split))]) {
  const inSplit = all.filter((e) => e.split === split);
  const head = ['task type', 'episodes', 'base', ...others.flatMap((o) => [o.name, `Δ ${o.name}`])];
  process.stdout.write(`\n### ${split}\n\n| ${head.join(' | ')} |\n|${head.map(() => '---|').join('')}\n`);
  for (const type of [...inEnvOrder(inSplit.map((e) => e.taskType)), 'all']) {
    const rows = type === 'all' ? inSplit : inSplit.filter((e) => e.taskType === type);
    const cells = others.flatMap(({ f }) => {
      const mine = rows.map((e) => f.episodes.get(`${split}/${e.index}`)!);
      return [pct(mine), pairedText(rows.map((e, i) => Number(mine[i].success) - Number(e.success)))];
    });
    process.stdout.write(`| ${[type, String(rows.length), pct(rows), ...cells].join(' | ')} |\n`);
  }
}
