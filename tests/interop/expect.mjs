// The checks of one call, shared by the TypeScript drivers (py_client.py mirrors them).
//
// `result` is `{isError, text, structured}`: text is the text blocks joined by "\n".
// A call with `code` must fail as a tool result: isError, structuredContent.error.code equal to
// `code`, structuredContent.error.message equal to the text the model reads, and that text
// holding every word of `says`. A call without `code` must succeed: no isError, the text holding
// `says`, and structuredContent holding the fields of `structured`.
export function expectations(call, result) {
    const problems = [];
    for (const word of call.says ?? []) {
        if (!result.text.includes(word)) problems.push(`the text does not mention ${JSON.stringify(word)}: ${JSON.stringify(result.text)}`);
    }
    if (call.code) {
        if (!result.isError) problems.push(`expected isError, got a success: ${JSON.stringify(result.text)}`);
        const error = result.structured?.error;
        if (error?.code !== call.code) problems.push(`expected structuredContent.error.code ${call.code}, got ${JSON.stringify(result.structured)}`);
        if (error?.message !== result.text) problems.push(`structuredContent.error.message is not the text: ${JSON.stringify(error?.message)}`);
    } else {
        if (result.isError) problems.push(`expected a success, got an error: ${JSON.stringify(result.text)}`);
        for (const [key, value] of Object.entries(call.structured ?? {})) {
            if (JSON.stringify(result.structured?.[key]) !== JSON.stringify(value)) {
                problems.push(`structuredContent.${key}: expected ${JSON.stringify(value)}, got ${JSON.stringify(result.structured?.[key])}`);
            }
        }
    }
    return problems;
}
