// Vite's worker imports (https://vite.dev/guide/features#import-with-query-suffixes): the module's
// default export constructs the worker, its code inlined in the bundle.
declare module '*?worker&inline' {
  const WorkerConstructor: new (options?: { name?: string }) => Worker;
  export default WorkerConstructor;
}
