/// <reference lib="webworker" />
import { toYamlText } from './configText';

/** Writes a large config as YAML off the main thread. */
self.onmessage = (event: MessageEvent<unknown>) => {
  self.postMessage(toYamlText(event.data));
};
