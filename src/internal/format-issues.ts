/** Formats validation issues (each a path and a message) as `a.b: message; c: message`. */
export function formatIssues(issues: readonly { path: readonly (string | number)[]; message: string }[]): string {
  return issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}
