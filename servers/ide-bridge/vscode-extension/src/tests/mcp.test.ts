/**
 * The cross-language tests' lookup of the Rust binaries: a missing binary is a failure that says
 * how to build it, never a skip (CI builds the binaries with `cargo test --workspace` first).
 */

import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';

import { rustBinary, targetDebugDir } from './mcp';

test('a missing Rust binary fails the test and says how to build it', () => {
  assert.throws(() => rustBinary('no-such-binary-of-mcp-suite'), /does not exist: build it with `cargo build -p mcp-server-ide-bridge`/);
});

test('the binaries are looked up in $CARGO_TARGET_DIR/debug when it is set, else target/debug', () => {
  const repo = path.resolve(__dirname, '..', '..', '..', '..', '..');
  assert.equal(targetDebugDir({}), path.join(repo, 'target', 'debug'));
  assert.equal(targetDebugDir({ CARGO_TARGET_DIR: '' }), path.join(repo, 'target', 'debug'));
  assert.equal(targetDebugDir({ CARGO_TARGET_DIR: '/opt/cargo-target' }), path.join('/opt/cargo-target', 'debug'));
  assert.equal(targetDebugDir({ CARGO_TARGET_DIR: 'build/t' }), path.join(repo, 'build', 't', 'debug'));
});
