/**
 * The SDK version, sent in the `User-Agent`. Kept equal to package.json by test/version.test.ts.
 * 0.0.0 until the first release: `changeset version` turns the first changeset (minor) into 0.1.0.
 */
export const VERSION = '0.0.0';
