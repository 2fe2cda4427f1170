import { uiText } from '@/config/ui-text';

/**
 * The message an error carries, or the generic one when it carries none
 * (docs/product.md#error-catalogue).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message.trim() !== '') return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { message } = error;
    if (typeof message === 'string' && message.trim() !== '') return message;
  }
  return uiText.errors.unknown;
}
