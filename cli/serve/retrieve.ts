/**
 * Search-R1's retrieval server route, `POST /retrieve` (Jin et al. 2025, `search_r1/search/retrieval_server.py`),
 * over the corpus of a registered env that has one (`EnvSpec.retrieve`). Both request shapes: Search-R1's batch
 * `{"queries": ["…"], "topk": 3, "return_scores": true}` and verl-agent's single `{"query": "…", "topk": 3}`; `env`
 * picks the env when several have a corpus (default: the first). The answer has one list per query, best first:
 * `{"result": [[{"document": {"contents": "Title\ntext"}, "score": s}, …]]}`, or with `"return_scores": false` the
 * documents alone, `{"result": [[{"contents": "Title\ntext"}, …]]}` (Search-R1's two shapes; verl-agent reads
 * `document.contents`, so an absent `return_scores` answers with scores).
 */
import { z } from 'zod';
import { ENV_SPECS } from '../../src/core/envs/registry';
import type { EnvSpec } from '../../src/core/envs/types';
import { HttpError, parseBody, type RouteTable } from './http';

/** Most passages per query (`topk`), and the default (Search-R1's `--topk`). */
export const MAX_TOPK = 100;
const DEFAULT_TOPK = 3;
/**
 * The query of the example body a refusal shows: one searchqa's corpus answers (its passage `Azure Club` first;
 * test/cli/serve-retrieve.test.ts), as a query about the world outside the corpus would find nothing.
 */
export const EXAMPLE_QUERY = 'who founded the Azure Club?';
/** Most queries per request and characters per query: BM25 over the corpus costs time in both, on one thread. */
export const MAX_QUERIES = 256;
export const MAX_QUERY_CHARS = 1000;

const retrieveSchema = z.object({
  query: z.string().max(MAX_QUERY_CHARS).optional(),
  queries: z.array(z.string().max(MAX_QUERY_CHARS)).max(MAX_QUERIES).optional(),
  topk: z.int().min(1).max(MAX_TOPK).optional(),
  return_scores: z.boolean().optional(),
  env: z.string().optional(),
});

/** The env whose corpus answers: `name`, else the first registered env with one. @throws HttpError 400 / 404. */
function corpusEnv(name: string | undefined): EnvSpec & Required<Pick<EnvSpec, 'retrieve'>> {
  const withCorpus = ENV_SPECS.filter((s) => s.retrieve !== undefined);
  if (!withCorpus.length)
    throw new HttpError(404, 'POST /retrieve: no registered env has a corpus to search (EnvSpec.retrieve)');
  const spec = name === undefined ? withCorpus[0] : withCorpus.find((s) => s.name === name);
  if (!spec)
    throw new HttpError(
      400,
      `POST /retrieve: env "${name}" has no corpus; the envs with one: ${withCorpus.map((s) => s.name).join(', ')}`,
    );
  return spec as EnvSpec & Required<Pick<EnvSpec, 'retrieve'>>;
}

/** The `/retrieve` route (see the module doc). */
export function retrieveRoutes(): RouteTable {
  return {
    'POST /retrieve': {
      maxBody: 1 << 20,
      handle(r) {
        const b = parseBody('POST /retrieve', r.body, retrieveSchema, {
          what: {
            query: `a question as text, at most ${MAX_QUERY_CHARS} characters`,
            queries: `an array of at most ${MAX_QUERIES} questions`,
            'queries[]': `a string of at most ${MAX_QUERY_CHARS} characters`,
            topk: `an integer in 1..${MAX_TOPK}`,
            return_scores: 'true or false',
          },
          example: { queries: [EXAMPLE_QUERY], topk: DEFAULT_TOPK, return_scores: true },
        });
        if (b.queries !== undefined && b.query !== undefined)
          throw new HttpError(
            400,
            'POST /retrieve: send "queries" (an array) or "query" (one question), not both; send e.g. ' +
              `{"queries": ["${EXAMPLE_QUERY}"], "topk": 3, "return_scores": true}`,
          );
        const queries = b.queries ?? (b.query !== undefined ? [b.query] : null);
        if (!queries)
          throw new HttpError(
            400,
            'POST /retrieve: send "queries" (an array) or "query" (one question); send e.g. ' +
              `{"queries": ["${EXAMPLE_QUERY}"], "topk": 3, "return_scores": true}`,
          );
        const spec = corpusEnv(b.env);
        const topk = b.topk ?? DEFAULT_TOPK;
        const result = queries.map((q) =>
          spec.retrieve(q, topk).map((p) => {
            const document = { contents: `${p.title}\n${p.text}` };
            return b.return_scores === false ? document : { document, score: p.score };
          }),
        );
        return { result };
      },
    },
  };
}
