// Builds native/build/reins_blas.node (TensorFlow.js matrix kernels over OpenBLAS): `node native/build.mjs`.
// Uses the C compiler and Node's own N-API headers directly, because node-gyp would download headers.
// When something it needs is missing it says so in one line and exits 0: the world model then runs
// on the wasm or cpu backend, only slower, so a missing library must not fail an install.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = dirname(fileURLToPath(import.meta.url));
const source = join(nativeDir, 'reins_blas.c');
const output = join(nativeDir, 'build', 'reins_blas.node');
const compiler = process.env.CC ?? 'cc';

function skip(why) {
  console.log(`native: OpenBLAS matrix kernels not built (${why}); the world model falls back to the wasm or cpu backend`);
  process.exit(0);
}

function nodeHeaders() {
  const candidates = [join(dirname(dirname(process.execPath)), 'include', 'node'), '/usr/include/node'];
  return candidates.find((dir) => existsSync(join(dir, 'node_api.h')));
}

function cblasHeaders() {
  const candidates = ['/usr/include/x86_64-linux-gnu', '/usr/include/aarch64-linux-gnu', '/usr/include/openblas', '/usr/include'];
  return candidates.find((dir) => existsSync(join(dir, 'cblas.h')));
}

if (existsSync(output) && statSync(output).mtimeMs > statSync(source).mtimeMs) process.exit(0);

if (spawnSync(compiler, ['--version'], { stdio: 'ignore' }).status !== 0) skip(`no C compiler '${compiler}'; install gcc`);
const nodeInclude = nodeHeaders();
if (!nodeInclude) skip('no node_api.h next to this Node or in /usr/include/node');
const cblasInclude = cblasHeaders();
if (!cblasInclude) skip('no cblas.h; install libopenblas-dev');

mkdirSync(dirname(output), { recursive: true });
const args = ['-O3', '-shared', '-fPIC', '-Wall', '-Wextra', `-I${nodeInclude}`, `-I${cblasInclude}`, source, '-lopenblas', '-o', output];
const build = spawnSync(compiler, args, { encoding: 'utf8' });
if (build.status !== 0) {
  const stderr = build.stderr ?? '';
  if (/cannot find -lopenblas/.test(stderr)) skip('libopenblas not found; install libopenblas-dev');
  if (/cblas\.h/.test(stderr)) skip('cblas.h not found; install libopenblas-dev');
  skip(stderr.split('\n').find((line) => /error/i.test(line))?.trim() ?? `${compiler} exited with ${build.status}`);
}
if (build.stderr) process.stderr.write(build.stderr);
console.log(`native: built ${output}`);
