/**
 * The one place ky is imported, for `http.ts` to load with `import()` on the first request. Only the
 * default export is re-exported, so bundlers can drop the rest of ky's exports (a dynamic import of
 * 'ky' itself keeps its whole namespace).
 */
export { default as ky } from 'ky';
