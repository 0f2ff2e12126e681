// vendor/transformers/ort.wasm.min.mjs is node_modules/onnxruntime-web/dist/ort.wasm.min.mjs.
export * from "onnxruntime-web";
