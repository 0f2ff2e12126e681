// Compiles the modules the app imports from the given wheel folders into __pycache__/*.pyc, with
// Pyodide's own Python (run here by Node, so the bytecode matches the interpreter the app ships),
// hash-based and unchecked: the browser then imports them without compiling their sources.
//
//   node scripts/pyodide_compile.mjs <pyodide folder> <python warm-up code> <folder> [<folder> ...]
//
// The folders (unpacked wheels) go on sys.path, the warm-up code runs, and every module it
// imported from them is compiled. Used by py/openmasq/site/bytecode.py; prints one JSON line:
// {"python": "3.14.2", "compiled": ["openmasq/__init__.py", ...]} (paths relative to their folder).

import { pathToFileURL } from "node:url";
import path from "node:path";

const [indexDir, warmUp, ...folders] = process.argv.slice(2);
if (!indexDir || !warmUp || folders.length === 0) {
  console.error("usage: node scripts/pyodide_compile.mjs <pyodide folder> <warm-up code> <folder> [<folder> ...]");
  process.exit(2);
}
const indexURL = path.resolve(indexDir) + path.sep;
const { loadPyodide } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL });
const mounts = folders.map((folder, index) => {
  const mount = `/wheels/${index}`;
  pyodide.FS.mkdirTree(mount);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(folder) }, mount);
  return mount;
});
pyodide.globals.set("mounts", pyodide.toPy(mounts));
pyodide.runPython("import sys; sys.path[:0] = list(mounts)");
pyodide.runPython(warmUp);
const answer = pyodide.runPython(`
import importlib.util, json, py_compile, sys
compiled = []
for module in list(sys.modules.values()):
    source = getattr(module, "__file__", None) or ""
    root = next((m for m in mounts if source.startswith(m + "/")), None)
    if root is None or not source.endswith(".py"):
        continue
    py_compile.compile(source, cfile=importlib.util.cache_from_source(source), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    compiled.append(source[len(root) + 1:])
json.dumps({"python": sys.version.split()[0], "compiled": sorted(compiled)})
`);
console.log(answer);
