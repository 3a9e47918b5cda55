"""The control words KaTeX (as shipped with Gradio's frontend) renders: a math span using any other word renders as a
red error, so the audit shows such a span as source instead (see :mod:`lemmata.space.texmath`).

Generated from the KaTeX bundle in Gradio's frontend assets (every backquoted ``\\name`` in
``gradio/templates/frontend/assets/katex-*.js``)::

    grep -oE '`\\\\[A-Za-z]+`' katex-*.js | sed -E 's/^`\\\\//; s/`$//' | sort -u
"""

KATEX_WORDS = frozenset("""
AA AE Alpha And Bbb Bbbk Beta Big Bigg Biggl Biggm Biggr Bigl Bigm Bigr Box Bra Braket Bumpeq Cap Chi
Colonapprox Coloneq Coloneqq Colonsim Complex Cup DOTSB DOTSI DOTSX Dagger Darr Delta Diamond Doteq Downarrow
Epsilon Eqcolon Eqqcolon Eta Finv Game Gamma H Harr Huge Im Iota Join KaTeX Kappa Ket LARGE LaTeX Lambda Large
Larr Leftarrow Leftrightarrow Lleftarrow Longleftarrow Longleftrightarrow Longrightarrow Lrarr Lsh Mu N Nu O
OE Omega Omicron Overrightarrow P Phi Pi Pr Psi R Rarr Re Reals Rho Rightarrow Rrightarrow Rsh S Set Sigma
Subset Supset Tau TeX TextOrMath Theta Uarr Uparrow Updownarrow Upsilon Vdash Vert Vvdash Xi Z Zeta aa above
acute ae alef alefsym aleph allowbreak alpha amalg angl angle angln approx approxcolon approxcoloncolon
approxeq argmax argmin arraystretch ast asymp atop backepsilon backprime backsim backsimeq backslash bar
barwedge bcancel because begin begingroup beta beth between bf bgroup big bigcap bigcirc bigcup bigg biggl
biggm biggr bigl bigm bigodot bigoplus bigotimes bigr bigsqcup bigstar bigtriangledown bigtriangleup biguplus
bigvee bigwedge binom blacklozenge blacksquare blacktriangle blacktriangledown blacktriangleleft
blacktriangleright blue blueA blueB blueC blueD blueE bm bmod bold boldsymbol bot bowtie boxdot boxed boxminus
boxplus boxtimes bra brace brack braket breve bull bullet bumpeq c cal cancel cap cdot cdotp cdots centerdot
cfrac char check checkmark chi choose circ circeq circlearrowleft circlearrowright circledR circledS
circledast circledcirc circleddash clap clubs clubsuit cnums colon colonapprox coloncolon coloncolonapprox
coloncolonequals coloncolonminus coloncolonsim coloneq coloneqq colonequals colonminus colonsim color colorbox
complement cong coprod copyright cr cup curlyeqprec curlyeqsucc curlyvee curlywedge curvearrowleft
curvearrowright d dArr dag dagger daleth darr dashleftarrow dashrightarrow dashv dbinom dblcolon ddag ddagger
ddddot dddot ddot ddots def degree delta det dfrac diagdown diagup diamond diamonds diamondsuit digamma
displaystyle div divideontimes dot doteq doteqdot dotplus dots dotsb dotsc dotsi dotsm dotso dotsx
doublebarwedge doublecap doublecup downarrow downdownarrows downharpoonleft downharpoonright edef egroup ell
emph empty emptyset end endgroup enskip enspace epsilon eqcirc eqcolon eqqcolon eqsim eqslantgtr eqslantless
equalscolon equalscoloncolon equiv errmessage eta eth exist exists expandafter fallingdotseq fbox fcolorbox
flat footnotesize forall frac frak frown futurelet gamma gcd gdef ge genfrac geq geqq geqslant gets gg ggg
gggtr gimel global gnapprox gneq gneqq gnsim goldA goldB goldC goldD goldE grave gray grayA grayB grayC grayD
grayE grayF grayG grayH grayI green greenA greenB greenC greenD greenE gt gtrapprox gtrdot gtreqless
gtreqqless gtrless gtrsim gvertneqq hArr harr hat hbar hbox hdashline hearts heartsuit hline hookleftarrow
hookrightarrow hphantom href hskip hslash hspace htmlClass htmlData htmlId htmlStyle huge i iff iiint iint
image imageof imath impliedby implies in includegraphics inf infin infty injlim int intercal intop iota isin
it j jmath kaBlue kaGreen kappa kern ket lArr lBrace lVert lambda land lang langle large larr lbrace lbrack
lceil ldotp ldots le leadsto left leftarrow leftarrowtail leftharpoondown leftharpoonup leftleftarrows
leftrightarrow leftrightarrows leftrightharpoons leftrightsquigarrow leftthreetimes leq leqq leqslant
lessapprox lessdot lesseqgtr lesseqqgtr lessgtr lesssim let lfloor lgroup lhd lim liminf limits limsup ll llap
llbracket llcorner lll llless lmoustache lnapprox lneq lneqq lnot lnsim long longleftarrow longleftrightarrow
longmapsto longrightarrow looparrowleft looparrowright lor lozenge lparen lq lrArr lrarr lrcorner lt ltimes
lvert lvertneqq maltese mapsto maroonA maroonB maroonC maroonD maroonE mathbb mathbf mathbin mathcal
mathchoice mathclap mathclose mathellipsis mathfrak mathinner mathit mathllap mathnormal mathop mathopen
mathord mathpunct mathrel mathring mathrlap mathrm mathscr mathsf mathsfit mathsterling mathstrut mathtt max
measuredangle medspace message mho mid middle min mintA mintB mintC minuscolon minuscoloncolon minuso mkern
mod models mp mskip mu multimap nLeftarrow nLeftrightarrow nRightarrow nVDash nVdash nabla natnums natural
ncong ne nearrow neg negmedspace negthickspace negthinspace neq newcommand newline nexists ngeq ngeqq
ngeqslant ngtr ni nleftarrow nleftrightarrow nleq nleqq nleqslant nless nmid nobreak nobreakspace noexpand
nolimits nonumber normalsize not notag notin notni nparallel nprec npreceq nrightarrow nshortmid
nshortparallel nsim nsubseteq nsubseteqq nsucc nsucceq nsupseteq nsupseteqq ntriangleleft ntrianglelefteq
ntriangleright ntrianglerighteq nu nvDash nvdash nwarrow o odot oe oiiint oiint oint omega omicron ominus
operatorname operatornamewithlimits oplus orange ordinarycolon origof oslash otimes over overbrace overbracket
overgroup overleftarrow overleftharpoon overleftrightarrow overline overlinesegment overrightarrow
overrightharpoon overset owns parallel partial perp phantom phase phi pi pink pitchfork plim plusmn pm pmb
pmod pod pounds prec precapprox preccurlyeq preceq precnapprox precneqq precnsim precsim prime prod projlim
propto providecommand psi purple purpleA purpleB purpleC purpleD purpleE qquad quad r rArr rBrace rVert
raisebox rang rangle rarr ratio rbrace rbrack rceil real reals red redA redB redC redD redE relax renewcommand
restriction rfloor rgroup rhd rho right rightarrow rightarrowtail rightharpoondown rightharpoonup
rightleftarrows rightleftharpoons rightrightarrows rightsquigarrow rightthreetimes risingdotseq rlap rm
rmoustache rparen rq rrbracket rtimes rule rvert scriptscriptstyle scriptsize scriptstyle sdot searrow sect
set setminus sf sharp shortmid shortparallel show sigma sim simcolon simcoloncolon simeq sixptsize small
smallfrown smallint smallsetminus smallsmile smash smile sout space spades spadesuit sphericalangle sqcap
sqcup sqrt sqsubset sqsubseteq sqsupset sqsupseteq square ss stackrel star sub sube subset subseteq subseteqq
subsetneq subsetneqq substack succ succapprox succcurlyeq succeq succnapprox succneqq succnsim succsim sum sup
supe supset supseteq supseteqq supsetneq supsetneqq surd swarrow t tag tau tbinom tealA tealB tealC tealD
tealE text textasciicircum textasciitilde textbackslash textbar textbardbl textbf textbraceleft textbraceright
textcircled textcolor textcopyright textdagger textdaggerdbl textdegree textdollar textellipsis textemdash
textendash textgreater textit textless textmd textnormal textquotedblleft textquotedblright textquoteleft
textquoteright textregistered textrm textsf textsterling textstyle texttt textunderscore textup tfrac
therefore theta thetasym thickapprox thicksim thickspace thinspace tilde times tiny tmspace to top triangle
triangledown triangleleft trianglelefteq triangleq triangleright trianglerighteq tt twoheadleftarrow
twoheadrightarrow u uArr uarr ulcorner underbar underbrace underbracket undergroup underleftarrow
underleftrightarrow underline underlinesegment underrightarrow underset unlhd unrhd uparrow updownarrow
upharpoonleft upharpoonright uplus upsilon upuparrows urcorner url utilde v vDash varDelta varGamma varLambda
varOmega varPhi varPi varPsi varSigma varTheta varUpsilon varXi varepsilon varinjlim varkappa varliminf
varlimsup varnothing varphi varpi varprojlim varpropto varrho varsigma varsubsetneq varsubsetneqq varsupsetneq
varsupsetneqq vartheta vartriangle vartriangleleft vartriangleright varvdots vcentcolon vcenter vdash vdots
vec vee veebar verb vert vphantom wedge weierp widecheck widehat widetilde wp wr x xLeftarrow xLeftrightarrow
xRightarrow xcancel xdef xhookleftarrow xhookrightarrow xi xleftarrow xleftequilibrium xleftharpoondown
xleftharpoonup xleftrightarrow xleftrightharpoons xlongequal xmapsto xrightarrow xrightequilibrium
xrightharpoondown xrightharpoonup xrightleftarrows xrightleftharpoons xtofrom xtwoheadleftarrow
xtwoheadrightarrow yen zeta
""".split())
