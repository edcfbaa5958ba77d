/**
 * Changes the user approves, and the editor's buffers (protocol version 3, §4.16–§4.17):
 * `ide/openDiff`, `ide/closeDiffs`, `ide/saveFile`.
 *
 * A proposal is shown in the editor's diff view ({@link ReviewState}); the user accepts it (with
 * any edits of their own made in the diff) or rejects it (or closes it). Whoever waits, the
 * accepted text is written when the user accepts, through the same {@link Files} write as
 * `fs/write` (atomic, confined; the user's acceptance is the confirmation). A call whose wait
 * runs out gets `pending` and the diff stays open: the same proposal asked again waits on the
 * same view, and gets the decision made meanwhile.
 */

import { Files } from './files';
import {
  CloseDiffsResult,
  DEFAULT_DIFF_WAIT_MS,
  OpenDiffParams,
  OpenDiffResult,
  SaveFileParams,
  SaveFileResult,
  WireError,
} from './protocol';

/** The user's decision on a diff view. */
export type Decision = { accepted: true; text: string } | { accepted: false };

/** A diff view the editor shows. */
export interface DiffView {
  /** Settles once, when the user accepts or rejects (closing the view rejects). */
  decision: Promise<Decision>;
  /** Closes the view; an undecided one counts as rejected. */
  close(): Promise<void>;
}

/** What the editor does for this module; the extension implements it over `vscode`. */
export interface ReviewState {
  /**
   * Opens the diff of `abs` (empty when it does not exist) against `proposed`, its right side
   * editable; `shown` is the path for titles.
   */
  showDiff(abs: string, exists: boolean, proposed: string, shown: string): Promise<DiffView>;
  /**
   * Saves the editor's unsaved changes of `abs`: whether it had some, whether it is open, and
   * the text saved.
   */
  save(abs: string): Promise<{ saved: boolean; open: boolean; text?: string }>;
}

type Outcome = Omit<OpenDiffResult, 'path' | 'reused'>;

interface Proposal {
  shown: string;
  text: string;
  view: DiffView;
  outcome: Promise<Outcome>;
  settled: boolean;
}

const NEVER_CANCELLED = { cancelled: false };

/** The `ide/openDiff`, `ide/closeDiffs` and `ide/saveFile` methods. */
export class Review {
  /** Open or decided-but-unreported proposals, by absolute path. */
  private readonly proposals = new Map<string, Proposal>();

  constructor(
    private readonly files: Files,
    private readonly state: ReviewState | undefined,
  ) {}

  private requireState(what: string): ReviewState {
    if (this.state === undefined) {
      throw WireError.rpc(-32601, `this host has no editor window, so it ${what}`);
    }
    return this.state;
  }

  /** `ide/openDiff`. */
  async openDiff(params: OpenDiffParams): Promise<OpenDiffResult> {
    const state = this.requireState('cannot show a diff');
    const shown = params.path;
    if (this.files.settings.readOnly) {
      throw WireError.of('READ_ONLY', `the workspace is read-only, so an accepted change to \`${shown}\` could not be written; nothing was shown`);
    }
    const bytes = Buffer.byteLength(params.newText, 'utf8');
    const max = this.files.settings.maxFileSize;
    if (bytes > max) {
      throw WireError.of('FILE_TOO_LARGE', `the proposed text is ${bytes} bytes, over the host's limit of ${max} bytes (maxFileSize); nothing was shown`);
    }
    const target = await this.files.writeTarget(shown);
    let proposal = this.proposals.get(target.abs);
    const reused = proposal !== undefined && proposal.text === params.newText;
    if (proposal !== undefined && !reused) {
      this.proposals.delete(target.abs);
      if (!proposal.settled) {
        await proposal.view.close();
      }
      proposal = undefined;
    }
    if (proposal === undefined) {
      let view: DiffView;
      try {
        view = await state.showDiff(target.abs, target.stat !== undefined, params.newText, shown);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw WireError.of(
          'UNAVAILABLE',
          `the IDE could not show the proposed change to \`${shown}\` (${reason}); nothing was written. Ask the user to open the IDE window, then retry`,
        );
      }
      const created: Proposal = { shown, text: params.newText, view, outcome: Promise.resolve({ status: 'rejected', userEdited: false, created: false }), settled: false };
      created.outcome = view.decision.then(async (decision): Promise<Outcome> => {
        if (!decision.accepted) {
          return { status: 'rejected', userEdited: false, created: false };
        }
        const written = await this.files.write({ path: shown, content: decision.text }, NEVER_CANCELLED, true);
        return { status: 'accepted', finalText: decision.text, userEdited: decision.text !== params.newText, created: written.created };
      });
      created.outcome.then(
        () => (created.settled = true),
        () => (created.settled = true),
      );
      this.proposals.set(target.abs, created);
      proposal = created;
    }
    const waitMs = params.waitMs ?? DEFAULT_DIFF_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    try {
      const outcome = await Promise.race([proposal.outcome, timeout]);
      if (outcome === undefined) {
        return { path: shown, status: 'pending', userEdited: false, created: false, reused };
      }
      this.proposals.delete(target.abs);
      return { path: shown, ...outcome, reused };
    } catch (error) {
      this.proposals.delete(target.abs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `ide/closeDiffs`: every undecided proposal's view closed (rejected); decided ones forgotten. */
  async closeDiffs(): Promise<CloseDiffsResult> {
    const closed: string[] = [];
    for (const [abs, proposal] of [...this.proposals]) {
      this.proposals.delete(abs);
      if (!proposal.settled) {
        await proposal.view.close();
        closed.push(proposal.shown);
      }
    }
    closed.sort();
    return { closed };
  }

  /** `ide/saveFile`. */
  async saveFile(params: SaveFileParams): Promise<SaveFileResult> {
    const state = this.requireState('has no unsaved buffers to save');
    if (this.files.settings.readOnly) {
      throw WireError.of('READ_ONLY', `the workspace is read-only; \`${params.path}\` was not saved`);
    }
    const target = await this.files.resolve(params.path, 'read');
    if (target.stat === undefined) {
      throw WireError.of('NOT_FOUND', `\`${params.path}\` does not exist`);
    }
    if (target.stat.type !== 'file') {
      throw WireError.of('INVALID_ARGS', `\`${params.path}\` is not a file`);
    }
    const { saved, open, text } = await state.save(target.abs);
    const path = this.files.confinement.protocolPath(target.abs) ?? params.path;
    if (saved) {
      this.files.announce([{ path, content: text ?? '' }], 'saved the editor buffer of');
    }
    return { path, saved, open };
  }
}
