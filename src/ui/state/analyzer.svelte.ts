/**
 * The analyzer panel's state (OPID / Skill-GRPO): the API key, the prompt template, the last "Test connection" and
 * the failure notice (a Svelte 5 reactive class). The key lives in this page's memory only: it goes to the worker
 * apart from the config and is never in the config, a link, an export, a log or a notice. Owned by RunState
 * (`run.analyzer`), which sends `extras()` before each configure.
 */
import type { RunConfig } from '../../core/run/config';
import type { StepEvent } from '../../core/train/events';
import type { AnalyzerExtras } from '../../worker/api';
import { DEFAULT_HTTP_PROMPT, type PromptTemplate } from '../../core/analyzer/prompt';
import { connectionText, redact, summariseFailures } from './analyzer-view';
import type { TrainerHandle } from './trainer-client';

/** Where a "Test connection" stands: not run (or settings changed since), running, or its answer. */
export type ConnectionState = 'idle' | 'testing' | 'ok' | 'failed';

/** Message text of an unknown error (Comlink re-creates worker errors as Error with the same message). */
function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What the analyzer state reads from the page's run (RunState has these; an interface keeps the import one-way). */
export interface AnalyzerHost {
  /** The worker's API, or null while none is up. */
  readonly api: TrainerHandle['api'] | null;
  /** The settings as the controls show them (a test uses their analyzer URL, model and timeout). */
  readonly draft: RunConfig;
  /** Every step event of the current run (they carry the analyzer's failures). */
  readonly steps: StepEvent[];
}

/** The analyzer's key, prompt template, connection test and failure notice, for one page. */
export class AnalyzerState {
  /**
   * The analyzer's API key: in this page's memory only, sent to the worker apart from the config; never
   * in the config, a link, an export, a log or a notice. Lost on reload, by design.
   */
  analyzerKey = $state('');
  /** The http analyzer's prompt template as edited; not stored in links (too long). */
  promptTemplate = $state.raw<PromptTemplate>(DEFAULT_HTTP_PROMPT);
  /** The last "Test connection": its state and the answer in words (key hidden). */
  connection = $state.raw<{ state: ConnectionState; text: string }>({ state: 'idle', text: '' });
  /** Failure total when the analyzer notice was dismissed; it shows again when more failures arrive. */
  failuresDismissedAt = $state(0);

  /** Analyzer failures of this run, merged over its steps (one notice, not one per step). */
  analyzerFailures = $derived.by(() => summariseFailures(this.host.steps));
  /** True when the analyzer notice has failures the user has not dismissed. */
  showAnalyzerFailures = $derived(this.analyzerFailures.total > this.failuresDismissedAt);
  /** True when the prompt template differs from DEFAULT_HTTP_PROMPT. */
  promptEdited = $derived(
    this.promptTemplate.system !== DEFAULT_HTTP_PROMPT.system || this.promptTemplate.user !== DEFAULT_HTTP_PROMPT.user,
  );

  /**
   * @param host the page's run (its worker, draft settings and step events).
   * @param onKeySet called after the key changed, before it goes to the worker (the run rewrites the link, in case a
   *   settings field holds the key).
   */
  constructor(
    private readonly host: AnalyzerHost,
    private readonly onKeySet: () => void,
  ) {}

  /**
   * Sets the analyzer's API key (page memory only) and hands it to the worker for runs not started yet (a started run
   * keeps its analyzer until Reset). Rewrites the link, in case a settings field holds the key.
   */
  async setAnalyzerKey(key: string): Promise<void> {
    this.analyzerKey = key;
    this.connection = { state: 'idle', text: '' };
    this.onKeySet();
    await this.sendExtras();
  }

  /** Replaces the system or user part of the prompt template; used by runs not started yet. */
  async setPromptTemplate(part: keyof PromptTemplate, text: string): Promise<void> {
    this.promptTemplate = { ...this.promptTemplate, [part]: text };
    await this.sendExtras();
  }

  /** Restores DEFAULT_HTTP_PROMPT. */
  async resetPromptTemplate(): Promise<void> {
    this.promptTemplate = DEFAULT_HTTP_PROMPT;
    await this.sendExtras();
  }

  /**
   * Sends one chat-completions request with the draft's analyzer URL, model and timeout and the key (the
   * "Test connection" button); `connection` holds the answer in words, the key hidden.
   */
  async testConnection(): Promise<void> {
    const api = this.host.api;
    if (!api) {
      this.connection = { state: 'failed', text: 'Connection failed: the training worker is not running yet.' };
      return;
    }
    const d = this.host.draft;
    this.connection = { state: 'testing', text: `Testing ${d.analyzerModel || 'the model'}…` };
    try {
      const r = await api.testAnalyzer({
        baseUrl: d.analyzerUrl,
        model: d.analyzerModel,
        apiKey: this.analyzerKey,
        timeoutMs: d.analyzerTimeoutMs,
      });
      this.connection = { state: r.ok ? 'ok' : 'failed', text: redact(connectionText(r), this.analyzerKey) };
    } catch (e) {
      this.connection = { state: 'failed', text: redact(`Connection failed: ${message(e)}`, this.analyzerKey) };
    }
  }

  /** Hides the analyzer failure notice until more failures arrive. */
  dismissAnalyzerFailures(): void {
    this.failuresDismissedAt = this.analyzerFailures.total;
  }

  /** The key and template as plain data (never a reactive proxy across the worker boundary). */
  extras(): AnalyzerExtras {
    return {
      apiKey: this.analyzerKey,
      promptTemplate: { system: this.promptTemplate.system, user: this.promptTemplate.user },
    };
  }

  /** Hands the key and template to the worker; failures are ignored (the next configure sends them again). */
  private async sendExtras(): Promise<void> {
    const api = this.host.api;
    if (!api) return;
    await api.setAnalyzerExtras(this.extras()).catch(() => undefined);
  }
}
