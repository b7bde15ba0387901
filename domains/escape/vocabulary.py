"""The words rooms are made of: titles, the things in them, and the words written on those things.

Tuples only (never sets), so that a seeded generator draws the same room on every run and interpreter.
"""

from __future__ import annotations

TITLES = (
    ("the Clockmaker's Attic", "Gears and half-built clocks cover every shelf; the ticking never quite agrees."),
    ("the Lighthouse Keeper's Office", "A logbook lies open by the window and the lamp above still turns."),
    ("the Botanist's Greenhouse", "Glass panes drip with condensation over rows of labelled pots."),
    ("the Cartographer's Study", "Maps are pinned over maps, and a brass globe stands in the corner."),
    ("the Old Signal Box", "Levers line the wall and a timetable is chalked on a board."),
    ("the Apothecary's Cellar", "Jars with faded labels crowd the shelves; it smells of camphor."),
    ("the Observatory Dome", "A telescope points at a closed shutter; star charts cover the desk."),
    ("the Puppet Workshop", "Wooden hands hang from strings and paint pots stand open."),
    ("the Captain's Cabin", "The floor creaks like a deck and a chart table fills the middle."),
    ("the Lost-Property Office", "Umbrellas, suitcases and single gloves wait on numbered shelves."),
    ("the Printer's Shop", "Trays of metal type line the walls beside an iron press."),
    ("the Beekeeper's Shed", "Empty frames are stacked high and a smoker sits on the bench."),
    ("the Radio Room", "Dials glow on a wall of valves and a headset hangs from a hook."),
    ("the Watchmaker's Vault", "A steel door, velvet trays and a lamp on a long arm."),
    ("the Museum Storeroom", "Crates stamped with catalogue numbers reach to the ceiling."),
    ("the Alchemist's Laboratory", "Glassware bubbles over a cold burner and symbols are chalked on the floor."),
    ("the Stationmaster's Room", "A ticket window, a bell and a stove long gone out."),
    ("the Toymaker's Loft", "Tin soldiers march along the beams and a rocking horse stands still."),
)

# name -> flavour, per kind of object. Names are nouns a player can type as ids (spaces become '_').
CONTAINERS = (
    ("desk", "An oak desk with a stiff drawer."), ("bookshelf", "A tall bookshelf, books two rows deep."),
    ("cabinet", "A glass-fronted cabinet."), ("toolbox", "A dented metal toolbox."),
    ("trunk", "A leather trunk with brass corners."), ("wardrobe", "A wardrobe with one door ajar."),
    ("crate", "A wooden crate with a loose lid."), ("suitcase", "A battered suitcase covered in stickers."),
    ("sideboard", "A sideboard with deep cupboards."), ("filing cabinet", "A grey filing cabinet."),
    ("hatbox", "A round hatbox tied with ribbon."), ("sea chest", "A salt-stained sea chest."),
    ("satchel", "A canvas satchel with a broken strap."), ("flour sack", "A half-empty flour sack."),
    ("biscuit tin", "A biscuit tin with a painted lid."), ("umbrella stand", "A brass umbrella stand."),
    ("chest of drawers", "A chest of drawers, one drawer missing its knob."),
    ("writing bureau", "A writing bureau with pigeonholes."), ("birdcage", "An empty birdcage with a cloth over it."),
    ("coal scuttle", "A coal scuttle, mostly empty."), ("picnic basket", "A wicker picnic basket."),
    ("cupboard", "A narrow cupboard under the stairs."), ("armchair", "A sagging armchair with deep cushions."),
    ("fireplace", "A cold fireplace full of old ash."), ("piano stool", "A piano stool with a hinged seat."),
    ("laundry basket", "A laundry basket full of linen."), ("workbench", "A workbench with a drawer underneath."),
    ("mail sack", "A canvas mail sack."), ("tea chest", "A plywood tea chest."),
    ("rolltop desk", "A rolltop desk, the top half closed."),
)
ITEMS = (
    ("postcard", "A faded postcard of a seaside pier."), ("brass plaque", "A small brass plaque."),
    ("pocket watch", "A pocket watch, stopped."), ("train ticket", "A punched train ticket."),
    ("luggage tag", "A luggage tag on a string."), ("receipt", "A crumpled receipt."),
    ("photograph", "A photograph of a family on a beach."), ("thermometer", "A glass thermometer."),
    ("ruler", "A wooden ruler with notches."), ("recipe card", "A recipe card spotted with grease."),
    ("letter", "A letter in neat handwriting."), ("calendar page", "A page torn from a wall calendar."),
    ("bookmark", "A leather bookmark."), ("tin label", "A label from a tin of peaches."),
    ("medal", "A medal on a faded ribbon."), ("compass", "A brass compass."),
    ("weighing scale", "A kitchen weighing scale."), ("measuring jug", "A glass measuring jug."),
    ("chalkboard", "A small chalkboard."), ("envelope", "A sealed envelope, already slit open."),
    ("playing card", "A single playing card."), ("matchbox", "A matchbox with a printed cover."),
    ("telegram", "A telegram on yellow paper."), ("napkin", "A paper napkin with writing on it."),
    ("coaster", "A beer coaster."), ("banknote", "An old banknote."), ("tape measure", "A cloth tape measure."),
    ("wax seal", "A wax seal on a scrap of ribbon."), ("paperweight", "A glass paperweight."),
    ("pressed flower", "A pressed flower between two sheets of card."), ("spoon", "An engraved silver spoon."),
    ("candle", "A half-burnt candle."), ("badge", "An enamel badge."), ("key fob", "A key fob without a key."),
    ("stamp", "A postage stamp."), ("sketch", "A pencil sketch of this very room."),
    ("sundial", "A small garden sundial."), ("hourglass", "An hourglass with red sand."),
    ("fountain pen", "A fountain pen with an engraved cap."), ("thimble", "A silver thimble."),
    ("music box", "A music box that plays three notes."), ("barometer", "A barometer with a cracked face."),
    ("ship in a bottle", "A ship in a bottle."), ("chess piece", "A carved chess knight."),
    ("lantern", "A storm lantern."), ("globe", "A small tin globe."), ("snow globe", "A snow globe."),
    ("film canister", "An empty film canister."), ("ink bottle", "An ink bottle, nearly dry."),
)
LOCKS = (
    ("strongbox", "A steel strongbox."), ("safe", "A small wall safe."), ("cash box", "A red cash box."),
    ("jewellery box", "A lacquered jewellery box."), ("lockbox", "A heavy lockbox."),
    ("briefcase", "A briefcase with a combination catch."), ("locker", "A tall metal locker."),
    ("padlocked chest", "A chest held shut by a padlock."), ("tin trunk", "A tin trunk with a padlock."),
    ("dial safe", "A safe with a brass dial."), ("puzzle box", "A wooden puzzle box."),
    ("ammunition box", "An army-green ammunition box."), ("tool locker", "A tool locker."),
    ("document case", "A document case with a combination catch."), ("vault drawer", "A drawer with a dial."),
    ("money belt", "A money belt with a tiny lock."), ("gun cabinet", "An empty gun cabinet."),
    ("deed box", "A black deed box."), ("trapdoor", "A trapdoor in the floor with a padlock."),
    ("cellar door", "A low door with a combination lock."),
)
DOCUMENTS = (
    ("ledger", "A ledger of names and figures."), ("timetable", "A railway timetable."),
    ("codebook", "A codebook: words on the left, their meaning on the right."),
    ("price list", "A shop's price list."), ("directory", "A telephone directory."),
    ("logbook", "A ship's logbook."), ("card index", "A drawer of index cards."),
    ("almanac", "An almanac of tides and saints' days."), ("inventory", "An inventory of the room's contents."),
    ("menu", "A restaurant menu."), ("catalogue", "A seed catalogue."), ("register", "A hotel register."),
    ("recipe book", "A recipe book with notes in the margins."), ("guestbook", "A guestbook."),
    ("star chart", "A star chart with numbered stars."), ("tide table", "A tide table."),
    ("gazetteer", "A gazetteer of towns."), ("phrasebook", "A phrasebook."),
    ("order book", "An order book."), ("field notebook", "A field notebook with numbered entries."),
)
PIECES = ("map", "letter", "photograph", "poster", "ticket", "chart", "diagram", "postcard", "page", "label",
          "certificate", "drawing", "note", "banner", "score sheet", "receipt")
PIECE_SIDES = (("left half", "right half"), ("top half", "bottom half"), ("first piece", "second piece"))
DECOYS = (
    ("umbrella", "A black umbrella, dry."), ("teacup", "A chipped teacup."), ("stool", "A three-legged stool."),
    ("broom", "A broom missing half its bristles."), ("coat hook", "A coat hook on the wall."),
    ("rug", "A threadbare rug."), ("vase", "A vase of dried flowers."), ("mirror", "A mirror, too dusty to see in."),
    ("bucket", "A tin bucket."), ("doormat", "A doormat reading WELCOME."),
)

# Words written on things (and the words that coded clues decode to): plain nouns, 4-9 letters.
WORDS = (
    "ANCHOR", "ANVIL", "APRICOT", "ARCHWAY", "BADGER", "BALLAST", "BANJO", "BARLEY", "BEACON", "BEETLE", "BELFRY",
    "BISCUIT", "BLOSSOM", "BONFIRE", "BRAMBLE", "BRIDGE", "BUCKLE", "CABBAGE", "CAMEL", "CANDLE", "CANYON",
    "CARAVAN", "CARROT", "CASTLE", "CEDAR", "CELLAR", "CHAPEL", "CHERRY", "CHIMNEY", "CINDER", "CLOVER", "COBALT",
    "COMET", "COPPER", "CORAL", "COTTAGE", "CRADLE", "CRATER", "CRICKET", "CROWN", "CURTAIN", "DAISY", "DOLPHIN",
    "DRAGON", "DRIFT", "EAGLE", "EMBER", "FALCON", "FEATHER", "FERRY", "FIDDLE", "FOREST", "FOSSIL", "FOUNTAIN",
    "GALLEON", "GARDEN", "GARNET", "GINGER", "GLACIER", "GOBLET", "GRANITE", "GRAVEL", "HAMMOCK", "HARBOUR",
    "HAZEL", "HEATHER", "HELMET", "HERON", "HICKORY", "HOLLOW", "HORIZON", "ICICLE", "INKWELL", "ISLAND", "IVORY",
    "JASMINE", "JIGSAW", "JUNIPER", "KESTREL", "KETTLE", "KNAPSACK", "LADDER", "LAGOON", "LANTERN", "LAUREL",
    "LEMON", "LILAC", "LOCKET", "LOBSTER", "MAGNET", "MAPLE", "MARBLE", "MEADOW", "MEDAL", "MINNOW", "MIRROR",
    "MONSOON", "MOSAIC", "MUSKET", "NECTAR", "NUTMEG", "OCTAVE", "ORCHARD", "ORCHID", "OTTER", "OYSTER", "PADDLE",
    "PARCEL", "PARROT", "PEBBLE", "PELICAN", "PEPPER", "PILGRIM", "PISTON", "PLANET", "PLUM", "POPLAR", "PUFFIN",
    "QUARRY", "QUILL", "RABBIT", "RAVEN", "RIBBON", "RIVET", "ROCKET", "SADDLE", "SAFFRON", "SAPPHIRE", "SCARLET",
    "SHELL", "SHERBET", "SILVER", "SPARROW", "SPINDLE", "SPRUCE", "STATUE", "SUMMIT", "SWALLOW", "TABLET",
    "TAVERN", "THIMBLE", "THISTLE", "THUNDER", "TIMBER", "TORCH", "TOUCAN", "TRUMPET", "TULIP", "TUNNEL",
    "TURNIP", "VELVET", "VIOLET", "VIOLIN", "WALNUT", "WALRUS", "WILLOW", "WINDMILL", "WREN", "YARROW", "ZEPHYR",
)
