/**
 * Pins searchqa task generation per subset and split: tasks 0..1999 of each split are reset through the env spec
 * (`searchqa.create`), each serialised as a stable JSON line (index, question, subset, reset observation, admissible
 * actions, max steps, and the hidden question: template, golds, hops, chain entities, clue, popularity), grouped by
 * subset; the sha256 of each subset's lines must equal the pinned hex (bamboogle has none in train and val).
 *
 * A change to the corpus, the questions or the rules must bump SEARCHQA_VERSION (world.ts) and these pins together
 * (and the conformance suite's): run configs and manifests record the version, so tasks never change under one
 * version. To recompute after a deliberate change, run this file: a failing pin prints the new digests as `Received`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { searchqa, type SearchQaEnv } from '../../../../src/core/envs/searchqa';
import { SPLITS, type Split } from '../../../../src/core/envs/types';

const TASKS = 2000;
/** searchqa-v2 changed only the action rule: the digests are searchqa-v1's (generation is seeded as in v1). */
const PINNED_VERSION = 'searchqa-v2';
const PINS: Record<Split, Record<string, string>> = {
  train: {
    '2wiki': 'fc28b326de9f4b98289cb99540d40d2bdd80fb62663741273de385dcea484a2b',
    hotpotqa: '745a4363eaf180fb8d5657304688c5c8cab58a97e780f3362a6d625f8ace9ef9',
    musique: '7af7e1b097c0f47cdda12021f825ad80e4987587dbbaf0bf7043f3691d5e047f',
    nq: '793be5c8060d5eea42556aa6a894b7cc34dbf66b752c2f1fe37b442952f54d2c',
    popqa: 'b48cdad06584ab8ac578fe158b6cc62bbf2fbecfcf9ee24408a3bb1262ad29ac',
    triviaqa: '0f955006d44b99f65a85b6006e742764abe4aa7cc03f69b9d890f5fbb5eed9a3',
  },
  'test-seen': {
    '2wiki': '1540be8602c694007b9a5d039f9511576733a6ec34b8a751e03439bf50589cbb',
    bamboogle: 'ea168cf1fbc5b3e6087caded89cc309bac9375527384b6f359872e35cbc80ca8',
    hotpotqa: '11f2ad3ad195f6fbec22ccc521e3a2a99ec1338e6fbbd7b46a3419ca8e8abba6',
    musique: 'ed6290fbe2a5dbebeee093f805f02b67235649047f1daae615c9b5ab28201de1',
    nq: '83dc9a38ff2fc562a366bd3f5863b10f066c8be8313be071ab10b287f08ef147',
    popqa: 'e34f05678635a8075fade985774f0731542e3c16f8133d494cb322bbe31c939a',
    triviaqa: 'd9fe120dab36073c5c1a26bcdf807f1c7f3e690b0fddf4581c12164b43454866',
  },
  'test-unseen': {
    '2wiki': '2116571cf93a77632447284e5b08baec4202cf22c613cebb3227de2ce8a254ab',
    bamboogle: 'd908c79471efae80d3b1e6b5dbfe51f6a2045110e756c8c873e4852eb0bb3137',
    hotpotqa: '40c4e3e913251b68749dc6cc59f19d72b1aa7e27bcd9c835171a4b524d73032b',
    musique: '8536535b0a570896311090fd0b7f31dc5336cba4715c70bc70ede930dc0b688e',
    nq: '1532abdd058dbb9406ff66cc1f3bb7e47ad3cf5c388fd5e1c5d18d0bf4d25104',
    popqa: '59d80f12ef2a0f90b297414a8db4622fe6b2cbec11827ad5d4ef767c2f94cbf2',
    triviaqa: 'c3b69cd47cad035a52d003ecb06ae434215e3641bd1d927664cc765de7d285eb',
  },
  val: {
    '2wiki': '3fa37999bd8a7391d65e1c153be676997d069f460cd94dd403d2c5c0d6e37356',
    hotpotqa: 'd650e06b89ac6c47372e0e23810beb3053bc7277a6bad8c182a62f4502e6b9da',
    musique: '5d728c8d3e5953f1a9b04ab48aad0ed85af0a4046b20f117659719cc46a04ca0',
    nq: 'ced302a28ac78f4e3f30956e940a13514d0a2106ac0441eba6558c933abe23c8',
    popqa: '96d84c60aaa06aa5daf87700ef4216b9ffd70e257140c45ca0bab013f4fcf34b',
    triviaqa: 'f89ca18a0f92ab6ee958bee340a6e162826f067973e3c685be6fd25f64567a7a',
  },
};

/** One task as a pinned line, and its subset. */
function taskLine(env: SearchQaEnv, split: Split, index: number): [string, string] {
  const r = env.reset({ split, index });
  const q = env.state.task.question;
  const hidden = { template: q.template, golds: q.golds, hops: q.hops, entities: q.entities, clue: q.clue };
  const line = {
    index,
    task: r.task,
    taskType: r.taskType,
    observation: r.observation,
    admissible: env.admissibleActions(),
    maxSteps: env.maxSteps,
    hidden: { ...hidden, popularity: q.popularity },
  };
  return [r.taskType, `${JSON.stringify(line)}\n`];
}

/** sha256 per subset of a split's tasks 0..TASKS−1. */
function digests(split: Split): Record<string, string> {
  const env = searchqa.create('default') as SearchQaEnv;
  const h = new Map<string, ReturnType<typeof createHash>>();
  for (let i = 0; i < TASKS; i++) {
    const [subset, line] = taskLine(env, split, i);
    if (!h.has(subset)) h.set(subset, createHash('sha256'));
    h.get(subset)!.update(line);
  }
  return Object.fromEntries([...h.keys()].sort().map((k) => [k, h.get(k)!.digest('hex')]));
}

describe('searchqa task pins (per subset and split)', () => {
  it('is pinned for its version', () => {
    expect(searchqa.version).toBe(PINNED_VERSION);
  });

  for (const split of SPLITS)
    it(`${split}: tasks 0..${TASKS - 1}, one digest per subset`, () => {
      expect(digests(split)).toEqual(PINS[split]);
    });
});
