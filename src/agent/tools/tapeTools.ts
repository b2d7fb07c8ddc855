import { tapeAnchorsTool } from './tapeAnchors';
import { tapeContextTool } from './tapeContext';
import { tapeHandoffTool } from './tapeHandoff';
import { tapeInfoTool } from './tapeInfo';
import { tapeSearchTool } from './tapeSearch';
import type { Tool } from './tool';

/** The tools that read the session's own tape or leave a handoff on it, in the order the model is shown them. */
export const TAPE_TOOLS: readonly Tool[] = [tapeSearchTool, tapeContextTool, tapeHandoffTool, tapeInfoTool, tapeAnchorsTool];
