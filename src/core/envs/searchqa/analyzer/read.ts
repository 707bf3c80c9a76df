/**
 * What the searchqa env's embedded analyzer reads off a trajectory's text: an action as the policy wrote it (the
 * bracket grammar of env.ts, Search-R1's `<search>`/`<answer>` tags), the passages a search showed (Search-R1's
 * `_passages2string` lines, `Doc i(Title: t) text`) and the facts a passage states (corpus.ts writes one sentence per
 * entity kind). Only public text is read (the observations the policy saw, the env's fixed templates), never the
 * hidden state, the corpus index or the expert.
 */
import { normalizeAction } from '../../types';

/** An action as written: `search[q]` / `answer[a]` with the argument's case kept, or an action of neither form. */
export interface ReadAction {
  /** `search[<arg>]` / `answer[<arg>]` (verb in lower case, argument trimmed, runs of whitespace as one space, case
   * kept); any other action trimmed, whitespace collapsed. */
  action: string;
  verb: 'search' | 'answer' | null;
  /** The text between the brackets as the policy wrote it (trimmed, whitespace collapsed); null for another form. */
  arg: string | null;
}

/**
 * Read an action the way env.ts judges it (the whole string `search[q]` or `answer[a]`, the argument non-empty after
 * trimming and free of `]`: the first `]` ends the action, `[` may stand inside), keeping the argument's case: the
 * policy copies names token for token, and the word-level tokenizer tells `Azure` from `azure`.
 */
export function readAction(raw: string): ReadAction {
  const action = String(raw).trim().replace(/\s+/g, ' ');
  const m = /^(search|answer)\[([^\]]*)\]$/i.exec(action);
  const arg = m ? m[2].trim() : '';
  if (!m || arg === '') return { action, verb: null, arg: null };
  const verb = m[1].toLowerCase() as 'search' | 'answer';
  return { action: `${verb}[${arg}]`, verb, arg };
}

/** Whether two actions are the same to the env (equal after `normalizeAction`: trimmed, collapsed, lower case). */
export function sameAction(a: string, b: string): boolean {
  return normalizeAction(a) === normalizeAction(b);
}

/**
 * A search or answer argument a step skill may carry: brackets replaced by spaces (a sampler closes the open form
 * with its first `]`, rollout/trie.ts), whitespace collapsed; null when nothing is left.
 */
export function skillArg(text: string): string | null {
  const out = text.replace(/[[\]]/g, ' ').replace(/\s+/g, ' ').trim();
  return out === '' ? null : out;
}

/** One passage as a search result shows it. */
export interface SeenPassage {
  title: string;
  text: string;
}

const DOC_LINE = /^Doc \d+\(Title: (.+?)\) (.*)$/;

/** The passages an observation shows, in rank order (`Doc i(Title: t) text` lines); [] for any other text. */
export function readPassages(observation: string): SeenPassage[] {
  const out: SeenPassage[] = [];
  for (const line of String(observation).split('\n')) {
    const m = DOC_LINE.exec(line);
    if (m) out.push({ title: m[1], text: m[2] });
  }
  return out;
}

/** A name's key for lookups: lower case, whitespace collapsed (`The Silent Harbour`, `the silent harbour`). */
export function nameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A relation a passage states (corpus.ts): the fields the question templates follow. */
export type Field =
  | 'capital'
  | 'country'
  | 'year'
  | 'occupation'
  | 'birthplace'
  | 'founder'
  | 'base'
  | 'maker'
  | 'host'
  | 'organiser'
  | 'workKind';

/** The entity kinds of the corpus' passages. */
export type PassageKind = 'country' | 'town' | 'person' | 'org' | 'work' | 'event';

/** What one passage states: its kind, title, text and fields as the text writes them (names keep their case). */
export interface Facts {
  kind: PassageKind;
  title: string;
  text: string;
  fields: Partial<Record<Field, string>>;
}

/** A regular-expression source matching `s` literally. */
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each kind's sentence after its title (corpus.ts `passageText`) and the fields its groups fill, in order. */
const SENTENCES: readonly { kind: PassageKind; head: string; rest: string; fields: Field[] }[] = [
  { kind: 'country', head: '', rest: ' is a country whose capital is (.+)\\.', fields: ['capital'] },
  { kind: 'town', head: '', rest: ' is a town in (.+), founded in (\\d+)\\.', fields: ['country', 'year'] },
  {
    kind: 'person',
    head: '',
    rest: ' was an? (\\S+) born in (.+) in (\\d+)\\.',
    fields: ['occupation', 'birthplace', 'year'],
  },
  {
    kind: 'org',
    head: 'The ',
    rest: ' was founded by (.+) in (\\d+) and is based in (.+)\\.',
    fields: ['founder', 'year', 'base'],
  },
  { kind: 'work', head: '', rest: ' is an? (\\S+) by (.+), \\S+ in (\\d+)\\.', fields: ['workKind', 'maker', 'year'] },
  {
    kind: 'event',
    head: 'The ',
    rest: ' was held in (.+) in (\\d+) and organised by the (.+)\\.',
    fields: ['host', 'year', 'organiser'],
  },
];

/** The facts of a passage (one of corpus.ts's six sentences about its title), or null for a text of no known form. */
export function readFacts(p: SeenPassage): Facts | null {
  for (const s of SENTENCES) {
    const m = new RegExp(`^${s.head}${literal(p.title)}${s.rest}$`).exec(p.text);
    if (!m) continue;
    const fields: Partial<Record<Field, string>> = {};
    s.fields.forEach((f, i) => (fields[f] = m[i + 1]));
    return { kind: s.kind, title: p.title, text: p.text, fields };
  }
  return null;
}
