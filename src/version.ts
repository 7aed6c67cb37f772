// Kept equal to package.json by test/version.test.ts; 0.0.0 until the first release.
/** The version of this SDK, as published on npm; sent in the `User-Agent` of every request. */
export const VERSION = '0.0.0';
