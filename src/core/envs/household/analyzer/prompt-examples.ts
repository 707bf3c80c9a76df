/**
 * What the generic `http` analyzer's prompt shows of the household env (EnvSpec.analyzerPrompt,
 * src/core/analyzer/prompt.ts `{examples}`): two worked examples, a success and a failure, in ALFWorld's action
 * wording. The skills are built with the grammar module (src/core/skills/grammar.ts), so they never drift from the
 * phrasings the base policy was taught. Observations are quoted as recorded (the default cut).
 */
import type { AnalyzerPromptSpec } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign } from '../../../skills/grammar';

/** The household env's part of the `http` analyzer's prompt (the same for every preset). */
export const HOUSEHOLD_PROMPT: AnalyzerPromptSpec = {
  examples: [
    {
      situation:
        'success; steps 0-3 were go to countertop 2, take apple 1 from countertop 2, go to fridge 1, ' +
        'move apple 1 to fridge 1',
      skills: {
        episodeSkill: episodeSkill([
          'go to countertop 2',
          'take apple 1 from countertop 2',
          'go to fridge 1',
          'move apple 1 to fridge 1',
        ]),
        stepSkills: {
          1: stepSkill('take apple 1 from countertop 2'),
          3: stepSkill('move apple 1 to fridge 1'),
        },
      },
    },
    {
      situation:
        'failure; task "put an apple in fridge", step 1 took mug 2 from countertop 1 while apple 1 was there too',
      skills: {
        episodeSkill: failureSkill(
          'take mug 2 from countertop 1',
          warningSign('wrongObject', 'apple'),
          'take apple 1 from countertop 1',
        ),
        stepSkills: { 1: stepSkill('take apple 1 from countertop 1') },
      },
    },
  ],
};
