/** Test helpers for the searchqa analyzer: test/core/envs/play-helpers.ts bound to searchqa/default. */
import { searchqa, type SearchQaEnv } from '../../../../../src/core/envs/searchqa';
import { playHelpers, type Chooser as AnyChooser } from '../../play-helpers';

export { actionOf, type Played } from '../../play-helpers';
/** What to do at each step (play-helpers.ts `Chooser`), with the searchqa env for its hidden state. */
export type Chooser = AnyChooser<SearchQaEnv>;

/** Play (an answer or 4 steps end the episode), a fixed action list, one action after a replayed prefix. */
export const { play, playActions, tryAt } = playHelpers<SearchQaEnv>(searchqa, 'default');
