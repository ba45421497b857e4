// The renderer's one door into the core: everything it knows about the wire comes from the contract.
export * from '../../../main/core/contract.ts';
