/**
 * What the generic `http` analyzer's prompt shows of the searchqa env (EnvSpec.analyzerPrompt,
 * src/core/analyzer/prompt.ts `{examples}` and how `{steps}` quotes an observation): two worked examples in
 * Search-R1's actions (Jin et al. 2025) in this env's brackets: a two-hop success and a failure that answered the
 * bridge entity after one hop, on train task 1 (`In which town was the author of The Rising Compass born?`,
 * HotpotQA-shaped: The Rising Compass → Wystan Morrow → Raven Gate). Their skills are what the embedded analyzer
 * (heuristic.ts) writes for those two episodes with K = 2 (the OPID paper's K for search QA), built with the grammar
 * module (src/core/skills/grammar.ts) so they never drift from the phrasings the base policy was taught.
 */
import type { AnalyzerPromptSpec } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign } from '../../../skills/grammar';
import { readPassages } from './read';

const HOP1 = 'search[The Rising Compass]';
const HOP2 = 'search[Wystan Morrow]';
const ANSWER = 'answer[Raven Gate]';

/**
 * An observation as the prompt quotes it: a search's passages as `(i) text` (the text names its title; Search-R1's
 * `Doc i(Title: t)` prefix would push the third passage past the prompt's 300-character cut), any other text as is.
 */
export function quotePassages(observation: string): string {
  const ps = readPassages(observation);
  return ps.length ? ps.map((p, i) => `(${i + 1}) ${p.text}`).join(' ') : observation;
}

/** The searchqa env's part of the `http` analyzer's prompt (one preset). */
export const SEARCHQA_PROMPT: AnalyzerPromptSpec = {
  examples: [
    {
      situation: `success; steps 0-2 were ${HOP1}, ${HOP2}, ${ANSWER}`,
      skills: {
        episodeSkill: episodeSkill([HOP1, HOP2, ANSWER]),
        stepSkills: { 1: stepSkill(HOP2), 2: stepSkill(ANSWER) },
      },
    },
    {
      situation:
        'failure; the task asks where the author of The Rising Compass was born, step 0 was ' +
        `${HOP1} (its passage names the author, Wystan Morrow), step 1 was answer[Wystan Morrow]`,
      skills: {
        episodeSkill: failureSkill('answer[Wystan Morrow]', warningSign('wrongPlace', 'a town'), HOP2),
        stepSkills: { 1: stepSkill(HOP2) },
      },
    },
  ],
  observationText: quotePassages,
};
