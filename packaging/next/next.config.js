// This folder is the app's root: Next would otherwise take the repository's, by its lockfile.
export default { turbopack: { root: import.meta.dirname }, outputFileTracingRoot: import.meta.dirname };
