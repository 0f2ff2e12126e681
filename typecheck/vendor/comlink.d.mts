// vendor/comlink.mjs is node_modules/comlink/dist/esm/comlink.mjs (py/openmasq/site/build.py, VENDOR_FILES).
export * from "comlink";
