import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillText, uiText } from './ui-text';
import { flightText } from './ui-text-flight';
import { operationsText } from './ui-text-operations';
import { recordingsText } from './ui-text-recordings';
import { rewindText } from './ui-text-rewind';
import { shortcutsText } from './ui-text-shortcuts';
import { statsText } from './ui-text-stats';

// Markdown wraps lines where it likes; a line break inside a quoted string reads as one space.
const productRules = readFileSync(
  join(import.meta.dirname, '../../../docs/product.md'),
  'utf8',
).replace(/\s+/g, ' ');

/** Every string of the module, with where it lives (`home.title`), however deep the nesting. */
function allTexts(node: object, prefix = ''): [string, string][] {
  return Object.entries(node).flatMap(([key, value]): [string, string][] => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'string') return [[path, value]];
    if (typeof value === 'object' && value !== null) return allTexts(value, path);
    throw new Error(`${path} is neither a string nor a group of strings`);
  });
}

/** Quoted as docs/product.md quotes a requirement: 'text', `text` or "text". */
function quotedIn(document: string, text: string): boolean {
  return ["'", '`', '"'].some((quote) => document.includes(`${quote}${text}${quote}`));
}

describe('the strings of the UI', () => {
  const texts = [
    ...allTexts(uiText),
    ...allTexts(statsText, 'stats'),
    ...allTexts(recordingsText, 'recordings'),
    ...allTexts(rewindText, 'rewind'),
    ...allTexts(shortcutsText, 'shortcutsHelp'),
    ...allTexts(flightText, 'flight'),
    ...allTexts(operationsText, 'operations'),
  ];

  it('are all found, whatever the nesting', () => {
    expect(texts.length).toBeGreaterThan(40);
    expect(texts).toContainEqual(['errors.loginFailed', 'Invalid credentials']);
  });

  it.each(texts)('%s appears verbatim, quoted, in docs/product.md', (_path, text) => {
    expect(quotedIn(productRules, text), `'${text}' is not quoted in docs/product.md`).toBe(true);
  });
});

describe('fillText', () => {
  it('fills every placeholder of a text and leaves the rest as written', () => {
    expect(fillText(uiText.player.video, { streamId: 'N743AS' })).toBe('Live video from N743AS');
    expect(fillText(uiText.home.liveCardLabel, { name: 'N953AS' })).toBe(
      'N953AS, live: Click to watch stream',
    );
    expect(fillText('{a} and {a} or {b}', { a: '1', b: '2' })).toBe('1 and 1 or 2');
  });
});
