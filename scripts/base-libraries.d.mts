/** See base-libraries.mjs. */
export declare const BASE_LIBRARIES: RegExp;
