// Package modelboot owns memdesk's connection to a local Ollama server: it
// finds the server, makes sure the embedding model is there (pulling it when
// it is not), warms it, publishes the resulting state as events, and embeds
// text once the model is ready.
//
// The app never waits for any of this. The owner constructs a [Boot] with
// [New], runs [Boot.Run] in a goroutine under a context it cancels, and reads
// [Boot.State] or [Boot.Subscribe] to show "semantic: <state>". Until the
// state is ready, [Boot.Embed] fails fast with [ErrOffline] or [ErrNotReady],
// and the engine answers on its lexical legs.
//
// Vectors leave [Boot.Embed] L2-normalised, with the width recorded at
// warm-up; anything else is a typed error ([ErrDimsChanged], [ErrZeroVector]).
// [Boot.Representation] declares how the vectors were made, with
// "undeclared" for what the server does not say.
//
// The package reads no environment variables: cmd resolves OLLAMA_HOST and
// friends and passes a [Settings].
//
// Tests run against [github.com/memdesk/memdesk/modelboot/ollamatest], an
// in-process server that speaks Ollama's wire format; tests tagged
// "integration" run against a real Ollama server (see integration_test.go).
package modelboot
