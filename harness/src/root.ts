/** The repository's root: where the product's builds and scripts are. */
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
