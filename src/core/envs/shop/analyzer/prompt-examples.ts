/**
 * What the generic `http` analyzer's prompt shows of the shop env (EnvSpec.analyzerPrompt, src/core/analyzer/prompt.ts
 * `{examples}`): two worked examples in WebShop's action wording (Yao et al. 2022) — a purchase that scored 1 and one
 * that missed an asked option — on train task 7 of the default preset (`polo shirt … with color: olive green, and
 * size: xx-large …`). Their skills are what the embedded analyzer (heuristic.ts) writes for those two episodes with
 * K = 2, built with the grammar module (src/core/skills/grammar.ts) so they never drift from the phrasings the base
 * policy was taught. Observations are quoted as recorded (the default cut).
 */
import type { AnalyzerPromptSpec } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign } from '../../../skills/grammar';

/** The successful episode's search: the instruction's key words and asked option values. */
const QUERY = 'search[short sleeve moisture wicking cotton blend polo shirt olive green xx-large]';

/** The shop env's part of the `http` analyzer's prompt (one preset). */
export const SHOP_PROMPT: AnalyzerPromptSpec = {
  examples: [
    {
      situation: `success; steps 0-4 were ${QUERY}, click[b55q83], click[olive green], click[xx-large], click[buy now]`,
      skills: {
        episodeSkill: episodeSkill([QUERY, 'click[b55q83]', 'click[olive green]', 'click[xx-large]', 'click[buy now]']),
        stepSkills: { 3: stepSkill('click[xx-large]'), 4: stepSkill('click[buy now]') },
      },
    },
    {
      situation:
        'failure, score 0.83; the task asks for size: xx-large, step 3 was click[buy now] on the item page ' +
        'that offered [xx-large], without clicking it',
      skills: {
        episodeSkill: failureSkill('click[buy now]', warningSign('wrongObject', 'size: xx-large'), 'click[xx-large]'),
        stepSkills: { 3: stepSkill('click[xx-large]') },
      },
    },
  ],
};
