# Sourced by the build and test scripts: the build tags memdesk ships with, for every go
# command they run (and the go builds the tests run themselves).
#   ne        gse embeds none of its dictionaries (33 MB): engine/entity loads the one it
#             uses from engine/background's word table.
#   no_emoji  Fyne leaves out its colour emoji font (4.2 MB): emoji are drawn with the
#             system's emoji font, found the way Fyne finds one for Chinese.
#   no_animations  Fyne's animations are off, the text cursor's blink among them: it
#             redrew the window twice a second, and an idle window with the search box
#             focused took 8.6% of a core (Xvfb's software GL), 2.3% without it.
export GOFLAGS="-tags=ne,no_emoji,no_animations${GOFLAGS:+ $GOFLAGS}"
