/**
 * The household commands a preset can ever offer, as forms with `…` for names (`take … from …`), for the hints a
 * person gets when an action does nothing (src/core/envs/play.ts) and for the `http` analyzer's prompt. Derived from
 * the preset's settings and room layouts, following the preconditions of `rules.ts` (ALFWorld rules, Shridhar et al.
 * 2021): a command is listed when some task of the preset can make it admissible. The policy never sees these forms.
 */
import type { CommandForm } from '../types';
import { APPLIANCE, CLOSABLE_KINDS, LAMP_HOLDERS } from './catalog';
import { presetConfig } from './presets';

/** A name: one or more words (`apple 1`, `sinkbasin 1`), as in every household action. */
const NAME = '(\\S+(?: \\S+)*)';

/** A form from its words: `…` stands for a name. `form('take … from …')` matches `take apple 1 from desk 1`. */
function form(text: string): CommandForm {
  const verb = text.split(' …')[0];
  const pattern = `^${text
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(NAME)}$`;
  return { verb, form: text, pattern: new RegExp(pattern) };
}

/**
 * Every command a household preset can offer, in the order `rules.ts` lists admissible actions: `go to …`, `open …`
 * /
 * `close …` (only with receptacles that start closed), `take … from …`, `move … to …`, `clean|heat|cool …
 * with …` (when a room of the preset has that appliance), `use …` (when a desklamp can appear), `examine …`,
 * `inventory`,
 * `look` (presets with information-only commands).
 * @throws Error naming the accepted presets on an unknown one.
 */
export function householdCommands(preset: string): CommandForm[] {
  const cfg = presetConfig(preset);
  const kinds = new Set(cfg.layouts.flatMap((l) => Object.keys(l.receptacles)));
  const has = (k: string) => kinds.has(k);
  const out = ['go to …'];
  if (cfg.closedReceptacles && CLOSABLE_KINDS.some(has)) out.push('open …', 'close …');
  out.push('take … from …', 'move … to …');
  for (const verb of ['clean', 'heat', 'cool'] as const) {
    if (has(APPLIANCE[verb] as string)) out.push(`${verb} … with …`);
  }
  const lamp = cfg.taskTypes.includes('look') || (cfg.lampChance > 0 && LAMP_HOLDERS.some(has));
  if (lamp) out.push('use …');
  if (cfg.infoActions) out.push('examine …', 'inventory', 'look');
  return out.map(form);
}
