/**
 * The StageError the SDK hands to `join()` rejections and `error` events. Shaped like the IVS
 * SDK's own (name 'StageError', numeric `code`, `category`, message `[CATEGORY] text`).
 */
import { STAGE_ERROR_MESSAGES } from '../signalling';
import { StageErrorCategory, StageErrorCode } from './enums';

export class StageError extends Error {
  readonly code: StageErrorCode;
  readonly category: StageErrorCategory;
  /** Extra detail from the local stage (e.g. why a token was refused), when there is one. */
  readonly details: string;

  constructor(code: StageErrorCode, category: StageErrorCategory, message: string, details = '') {
    super(message);
    this.name = 'StageError';
    this.code = code;
    this.category = category;
    this.details = details;
  }
}

const knownCodes = new Set<number>(Object.values(StageErrorCode));

function asCode(code: number): StageErrorCode {
  return knownCodes.has(code) ? (code as StageErrorCode) : StageErrorCode.FAILED;
}

/** An error in IVS's words: `[JOIN_ERROR] Token is malformed`. */
export function ivsError(code: number, category: StageErrorCategory, details = ''): StageError {
  const known = asCode(code);
  const text = STAGE_ERROR_MESSAGES[known] ?? 'Operation failed';
  return new StageError(known, category, `[${category}] ${text}`, details);
}

/**
 * An error raised by the stage during a session: its own message with the category prefix, or
 * an empty message when the stage gave none (the app then shows its own fallback text).
 */
export function stageRaisedError(
  code: number,
  category: StageErrorCategory,
  message: string,
): StageError {
  return new StageError(asCode(code), category, message ? `[${category}] ${message}` : '');
}

/** A join the stage refused: `[JOIN_ERROR] ` and the stage's text (IVS's for the code if none). */
export function joinRefused(code: number, message: string, details = ''): StageError {
  const known = asCode(code);
  const text = message || STAGE_ERROR_MESSAGES[known] || 'Operation failed';
  return new StageError(known, StageErrorCategory.JOIN_ERROR, `[JOIN_ERROR] ${text}`, details);
}
