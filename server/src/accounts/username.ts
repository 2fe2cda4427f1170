/**
 * The username grammar and its one canonical form. Every place that compares names (the users
 * CLI, the store's SQL, the login rate limit's key, login itself) goes through
 * `canonicalUsername`, so no two of them can disagree about which account a name means: a name
 * outside the grammar means none (a look-alike such as `p\u0130tester` is not `pitester`).
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * The name as every comparison sees it: ASCII letters lower-cased (the grammar admits nothing
 * else to fold, so no locale or Unicode rule takes part), or undefined outside the grammar.
 */
export function canonicalUsername(username: string): string | undefined {
  return USERNAME_PATTERN.test(username) ? username.toLowerCase() : undefined;
}
