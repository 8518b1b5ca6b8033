export * from './archived-messages.ts';
export * from './history-as-shown.ts';
export * from './project-view.ts';
export * from './tool-pairing-repair.ts';
