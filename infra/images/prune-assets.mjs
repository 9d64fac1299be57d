// Run by the Containerfile's build stage: a package whose files a service serves but never imports
// (the gateway's Scalar bundle) keeps just those files and its package.json (what the service's
// import.meta.resolve reads), and every installed package reached only through it is deleted.
//
//   node prune-assets.mjs <app dir> <workspace package dir>... -- <package>:<file>[,<file>]...
//
// Reachability follows pnpm's layout: a package at .pnpm/<key>/node_modules/<name> sees its own
// dependencies as the other entries of .pnpm/<key>/node_modules; workspace packages see theirs in
// their own node_modules. Uses only Node's standard library (it runs before anything is installed).
import { existsSync, lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const [app, ...rest] = process.argv.slice(2);
const split = rest.indexOf('--');
if (!app || split < 1 || split === rest.length - 1) {
  console.error('usage: node prune-assets.mjs <app dir> <workspace package dir>... -- <package>:<file>[,<file>]...');
  process.exit(2);
}
const workspaces = rest.slice(0, split).map((dir) => join(app, dir));
const assets = new Map(
  rest.slice(split + 1).map((arg) => [arg.slice(0, arg.lastIndexOf(':')), arg.slice(arg.lastIndexOf(':') + 1).split(',')]),
);
const store = join(app, 'node_modules', '.pnpm');

/** Package name → real directory of each entry of a node_modules directory (scopes included). */
function entries(nodeModules) {
  const found = [];
  if (!existsSync(nodeModules)) return found;
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    const names = name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((inner) => `${name}/${inner}`) : [name];
    for (const pkg of names) {
      const path = join(nodeModules, pkg);
      if (existsSync(path)) found.push([pkg, realpathSync(path)]);
    }
  }
  return found;
}

/** The .pnpm/<key> directory a real package directory lives in, or undefined outside the store. */
const storeKey = (dir) => (dir.startsWith(store + sep) ? relative(store, dir).split(sep)[0] : undefined);

const reached = new Set(); // .pnpm keys
const assetDirs = new Map(); // real dir of an asset package → files to keep
const queue = [];
for (const workspace of workspaces) {
  for (const [name, dir] of entries(join(workspace, 'node_modules'))) {
    if (assets.has(name)) assetDirs.set(dir, assets.get(name));
    else queue.push(dir);
  }
}
while (queue.length > 0) {
  const key = storeKey(queue.pop());
  if (key === undefined || reached.has(key)) continue;
  reached.add(key);
  for (const [, dir] of entries(join(store, key, 'node_modules'))) queue.push(dir);
}

let freed = 0;
const sizeOf = (path) => {
  const stat = lstatSync(path);
  return stat.isDirectory() ? readdirSync(path).reduce((total, name) => total + sizeOf(join(path, name)), 0) : stat.size;
};
const remove = (path) => {
  freed += sizeOf(path);
  rmSync(path, { recursive: true, force: true });
};
/** Deletes the symbolic links of a node_modules directory (scopes included), not real directories. */
const unlink = (dir, onlyDangling) => {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink() && (!onlyDangling || !existsSync(path))) rmSync(path);
    else if (stat.isDirectory() && name.startsWith('@')) {
      unlink(path, onlyDangling);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    }
  }
};

for (const [dir, files] of assetDirs) {
  const key = storeKey(dir);
  // Also reached through a package that imports it: it stays whole.
  if (key === undefined || reached.has(key)) continue;
  reached.add(key);
  for (const file of files) if (!existsSync(join(dir, file))) throw new Error(`${join(dir, file)}: not in the package`);
  const keep = ['package.json', ...files];
  const prune = (current) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      const rel = relative(dir, path);
      if (keep.includes(rel) || /^licen[cs]e/i.test(rel)) continue;
      if (keep.some((file) => file.startsWith(rel + sep))) prune(path);
      else remove(path);
    }
  };
  prune(dir);
  // The links to its own dependencies, beside it in .pnpm/<key>/node_modules.
  unlink(join(store, key, 'node_modules'), false);
}

for (const key of readdirSync(store)) {
  if (key === 'node_modules' || key.startsWith('.') || reached.has(key) || !lstatSync(join(store, key)).isDirectory()) continue;
  remove(join(store, key));
}

// pnpm's hoisted links to packages just deleted.
unlink(join(store, 'node_modules'), true);

console.log(
  `prune-assets: kept ${[...assets].map(([name, files]) => `${name} (${files.join(', ')})`).join('; ')}; freed ${(freed / 1e6).toFixed(1)} MB`,
);
