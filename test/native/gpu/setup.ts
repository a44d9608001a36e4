/** Every GPU test file loads the GPU addon, before anything loads the default one. */
import { setNativeAddonPath } from '../../../src/index.js';
import { GPU_ADDON } from './gpu-addon.js';

setNativeAddonPath(GPU_ADDON);
