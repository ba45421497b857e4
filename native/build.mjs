// Builds the core's native addons: `node native/build.mjs`.
//   build/reins_alloc.node — the C library's allocator tuned for long sessions (main/core/runtime/allocatorTuning.ts);
//   build/reins_blas.node  — TensorFlow.js matrix kernels over OpenBLAS.
// Uses the C compiler and Node's own N-API headers directly, because node-gyp would download headers.
// When something an addon needs is missing it says so in one line and goes on (exit 0): the core
// runs without either, the world model only slower and the allocator untuned, so a missing library
// must not fail an install.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = dirname(fileURLToPath(import.meta.url));
const compiler = process.env.CC ?? 'cc';

function nodeHeaders() {
  const candidates = [join(dirname(dirname(process.execPath)), 'include', 'node'), '/usr/include/node'];
  return candidates.find((dir) => existsSync(join(dir, 'node_api.h')));
}

function cblasHeaders() {
  const candidates = ['/usr/include/x86_64-linux-gnu', '/usr/include/aarch64-linux-gnu', '/usr/include/openblas', '/usr/include'];
  return candidates.find((dir) => existsSync(join(dir, 'cblas.h')));
}

/** Builds one addon, or answers in one line why it was not built. */
function buildAddon({ name, fallback, includes, libraries, explain }) {
  const source = join(nativeDir, `${name}.c`);
  const output = join(nativeDir, 'build', `${name}.node`);
  const skip = (why) => console.log(`native: ${name} not built (${why}); ${fallback}`);
  if (existsSync(output) && statSync(output).mtimeMs > statSync(source).mtimeMs) return;
  if (spawnSync(compiler, ['--version'], { stdio: 'ignore' }).status !== 0) return skip(`no C compiler '${compiler}'; install gcc`);
  const missing = includes.find(({ dir }) => !dir);
  if (missing) return skip(missing.why);
  mkdirSync(dirname(output), { recursive: true });
  const args = ['-O3', '-shared', '-fPIC', '-Wall', '-Wextra', ...includes.map(({ dir }) => `-I${dir}`), source, ...libraries, '-o', output];
  const build = spawnSync(compiler, args, { encoding: 'utf8' });
  if (build.status !== 0) {
    const stderr = build.stderr ?? '';
    return skip(
      explain(stderr) ??
        stderr
          .split('\n')
          .find((line) => /error/i.test(line))
          ?.trim() ??
        `${compiler} exited with ${build.status}`,
    );
  }
  if (build.stderr) process.stderr.write(build.stderr);
  console.log(`native: built ${output}`);
}

const nodeInclude = { dir: nodeHeaders(), why: 'no node_api.h next to this Node or in /usr/include/node' };

buildAddon({
  name: 'reins_alloc',
  fallback: 'the C allocator keeps its defaults, and a long session holds more memory',
  includes: [nodeInclude],
  libraries: [],
  explain: () => undefined,
});

buildAddon({
  name: 'reins_blas',
  fallback: 'the world model falls back to the wasm or cpu backend',
  includes: [nodeInclude, { dir: cblasHeaders(), why: 'no cblas.h; install libopenblas-dev' }],
  libraries: ['-lopenblas', '-lm'],
  explain: (stderr) => {
    if (/cannot find -lopenblas/.test(stderr)) return 'libopenblas not found; install libopenblas-dev';
    if (/cblas\.h/.test(stderr)) return 'cblas.h not found; install libopenblas-dev';
    return undefined;
  },
});
