// vendor/transformers/transformers.min.js is node_modules/@huggingface/transformers/dist/transformers.min.js.
// Its own declarations pull in Node's (and take seconds to load): the two exports ml-worker.js uses,
// loosely typed (a pipeline's output depends on its task).
export const env: any;
export function pipeline(task: string, model: string, options?: object): Promise<(...args: any[]) => Promise<any>>;
