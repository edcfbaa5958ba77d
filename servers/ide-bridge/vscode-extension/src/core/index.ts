/**
 * The protocol core of the IDE bridge's workspace host: everything but the editor. It imports
 * nothing from `vscode`, so it runs (and is tested) under plain Node.
 */

export * from './discovery';
export * from './files';
export * from './handshake';
export * from './host';
export * from './nodeWorkspace';
export * from './paths';
export * from './protocol';
export * from './workspace';
export * from './ide';
export * from './lang';
export * from './review';
